/// The deterministic reply texts the simulator streams, so tests can compute what they should receive.
public enum MockReply {
    /// Tokens that `mock-reset`, `mock-stall` and `mock-garbage` send before their fault.
    public static let tokensBeforeFault = 3

    /// The whole reply for `model` with `tokens` tokens (`mock-long` ignores `tokens`), as its content streams:
    /// `mock-think-tag`'s opens with its reasoning inside `<think>…</think>`.
    public static func text(model: String, tokens: Int) -> String {
        chunks(model: model, tokens: tokens).joined()
    }

    /// The reply split into the token texts that are streamed one per chunk; they concatenate to `text`.
    /// `mock-think-tag` cuts its tags across chunks (`<thi`, `nk>`), as a tokenizer may.
    public static func chunks(model: String, tokens: Int) -> [String] {
        switch MockFault(model: model) {
        case .long: LongDocument.chunks
        case .thinkTag:
            ["<thi", "nk>"] + reasoningWords + ["</th", "ink>", "\n\n"] + shortChunks(count: max(1, tokens))
        default: shortChunks(count: max(1, tokens))
        }
    }

    /// The reasoning `model` shows before its answer (`mock-think` apart from the content, `mock-think-tag` inside
    /// it); empty for the others.
    public static func reasoning(model: String) -> String {
        [.think, .thinkTag].contains(MockFault(model: model)) ? reasoningWords.joined() : ""
    }

    /// `mock-cite`'s reply to a request body: a citation of each numbered source in it, in order.
    static func citations(in requestText: String) -> [String] {
        // In the JSON body the attribute's quotes are escaped.
        let marker = "<source id=\\\""
        let numbers = requestText.components(separatedBy: marker).dropFirst().compactMap { rest in
            Int(rest.prefix { $0.isNumber })
        }
        guard !numbers.isEmpty else { return ["No", " sources", " were", " given."] }
        return ["From", " the", " documents:"] + numbers.map { " [\($0)]" } + ["."]
    }

    /// The reasoning `mock-think` streams apart from its answer, one token a chunk (none for other models).
    static func reasoningChunks(model: String) -> [String] {
        MockFault(model: model) == .think ? reasoningWords : []
    }

    /// A reasoning of 20 tokens, with a `<` that is not a tag and text beyond ASCII.
    private static let reasoningWords = [
        "Let", " me", " think", " step", " by", " step:", " the", " user", " greets", " the", " mock;", " 2 <",
        " 3,", " so", " a", " short", " answer", " fits", " —", " done.",
    ]

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
