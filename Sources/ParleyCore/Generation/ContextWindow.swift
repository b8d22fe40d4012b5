/// Fits a conversation into a model's context window, dropping the oldest turns first.
public enum ContextWindow {
    /// A rough token count: about four characters a token, as providers' tokenizers average on prose.
    /// What an image is counted as (vendors charge roughly 500 to 1,600 tokens for a picture of usual size).
    public static let tokensPerImage = 1_000

    /// The estimated size of a turn: its text and its images.
    public static func estimatedTokens(_ turn: ChatTurn) -> Int {
        estimatedTokens(turn.content) + turn.images.count * tokensPerImage
    }

    public static func estimatedTokens(_ text: String) -> Int {
        (text.utf8.count + 3) / 4
    }

    /// The system prompt (kept) and as many of the latest turns as fit in `window - reserve` tokens;
    /// throws `.contextTooLong` when not even the last turn fits.
    public static func fit(systemPrompt: String, history: [ChatTurn], window: Int, reserve: Int) throws(ProviderError) -> [ChatTurn] {
        let overheadPerTurn = 4
        var budget = window - min(reserve, window / 2)
        var system: [ChatTurn] = []
        if !systemPrompt.isEmpty {
            system = [ChatTurn(role: .system, content: systemPrompt)]
            budget -= estimatedTokens(systemPrompt) + overheadPerTurn
        }
        var kept: [ChatTurn] = []
        for turn in history.reversed() {
            let cost = estimatedTokens(turn) + overheadPerTurn
            guard cost <= budget else { break }
            budget -= cost
            kept.append(turn)
        }
        guard !kept.isEmpty || history.isEmpty else { throw .contextTooLong }
        // A reply must answer a user turn: drop leading assistant turns left by trimming.
        while kept.last?.role == .assistant { kept.removeLast() }
        return system + kept.reversed()
    }
}
