/// Fits a conversation into a model's context window, dropping the oldest turns first.
public enum ContextWindow {
    /// What an image is counted as (vendors charge roughly 500 to 1,600 tokens for a picture of usual size).
    public static let tokensPerImage = 1_000

    /// The estimated size of a turn: its text and its images.
    public static func estimatedTokens(_ turn: ChatTurn) -> Int {
        estimatedTokens(turn.content) + turn.images.count * tokensPerImage
    }

    /// A token count that errs high, as tokenizers split each kind of text (counted in quarter tokens): about four
    /// letters or spaces a token, as on prose; punctuation and symbols two a token, as in code; a token a digit; a
    /// token a CJK, kana or Hangul character; half a token for other non-ASCII letters; two for an emoji. (A flat
    /// four characters a token counted 3,521 digits as 881 tokens where a real tokenizer made 3,519.)
    public static func estimatedTokens(_ text: String) -> Int {
        var quarters = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): quarters += 4
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: " "),
                0x09...0x0D:
                quarters += 1
            case 0x00..<0x80: quarters += 2
            case 0x80..<0xC0: break  // a continuation byte: its character was counted at its first byte
            case 0xC0..<0xE0: quarters += 2
            case 0xE0..<0xF0: quarters += 4
            default: quarters += 8
            }
        }
        return (quarters + 3) / 4
    }

    /// The same turns fitted into about half the tokens they are estimated at (the system prompt kept), for a provider
    /// that refused them as too long although the estimate fitted its window; nil when not even the last turn fits.
    public static func halved(_ turns: [ChatTurn]) -> [ChatTurn]? {
        let system = turns.first { $0.role == .system }?.content ?? ""
        let history = turns.filter { $0.role != .system }
        let total = turns.reduce(0) { $0 + estimatedTokens($1) }
        guard history.count > 1,
            let fitted = try? fit(systemPrompt: system, history: history, window: total / 2, reserve: 0),
            fitted.contains(where: { $0.role != .system })
        else { return nil }
        return fitted
    }

    /// The system prompt (kept) and as many of the latest turns as fit in `window - reserve` tokens;
    /// throws `.contextTooLong` when not even the last turn fits.
    public static func fit(systemPrompt: String, history: [ChatTurn], window: Int, reserve: Int) throws(ProviderError)
        -> [ChatTurn]
    {
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
