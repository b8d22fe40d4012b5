/// The deterministic reply texts the simulator streams, so tests can compute what they should receive.
public enum MockReply {
    /// Tokens that `mock-reset`, `mock-stall` and `mock-garbage` send before their fault.
    public static let tokensBeforeFault = 3

    /// The whole reply for `model` with `tokens` tokens (`mock-long` ignores `tokens`).
    public static func text(model: String, tokens: Int) -> String {
        chunks(model: model, tokens: tokens).joined()
    }

    /// The reply split into the token texts that are streamed one per chunk; they concatenate to `text`.
    public static func chunks(model: String, tokens: Int) -> [String] {
        MockFault(model: model) == .long ? LongDocument.chunks : shortChunks(count: max(1, tokens))
    }

    /// A short markdown reply of exactly `count` word tokens, with a paragraph break every 20 tokens.
    private static func shortChunks(count: Int) -> [String] {
        let opening = [
            "Hello!", "This", "is", "a", "**mock**", "reply", "of", "\(count)", "tokens", "from", "the", "*Parley*",
            "upstream", "simulator.",
        ]
        let filler = ["The", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog."]
        return (0..<count).map { index in
            let word = index < opening.count ? opening[index] : filler[(index - opening.count) % filler.count]
            let separator = index == 0 ? "" : (index % 20 == 0 ? "\n\n" : " ")
            return separator + word
        }
    }
}
