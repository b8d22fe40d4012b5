import ParleyCore

/// Splits a streamed content that starts with `<think>` (after optional whitespace) into reasoning, up to `</think>`,
/// and the answer after it, the newlines right after `</think>` dropped; a content that starts otherwise is all answer,
/// and a `<think>` never closed is all reasoning. This is how DeepSeek-R1 and Qwen answer through a server without a
/// reasoning parser. The split is the same however the content is sliced into chunks (a tag may arrive as `<thi` and
/// `nk>`): only the bytes that could still be part of a tag are held back, until the next chunk or `flush`.
struct ThinkTagSplitter: Sendable {
    private enum Phase: Sendable {
        /// No text but whitespace and part of `<think>` has come: whether the content reasons is not known yet.
        case undecided
        /// Inside `<think>`: text is reasoning.
        case reasoning
        /// Just after `</think>`: newlines are dropped.
        case closing
        /// The answer: text passes through.
        case answer
    }

    private static let opening = Array("<think>".utf8)
    private static let closing = Array("</think>".utf8)

    private var phase = Phase.undecided
    /// Text held back: while undecided, the whitespace and the part of `<think>` so far; inside the reasoning, a part
    /// of `</think>` at its end.
    private var held = ""

    /// Appends the chunks `content` makes: reasoning, then answer text, each only when not empty.
    mutating func feed(_ content: String, into chunks: inout [CompletionChunk]) {
        var rest = Substring(content)
        // Whether `rest` is still all of `content`, which then goes on as it is, without a copy.
        var isWhole = true
        while !rest.isEmpty {
            switch phase {
            case .answer:
                chunks.append(.text(isWhole ? content : String(rest)))
                return
            case .closing:
                let kept = rest.drop { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
                if kept.startIndex != rest.startIndex { isWhole = false }
                rest = kept
                if !rest.isEmpty { phase = .answer }
            case .undecided:
                held += rest
                rest = decide()
                isWhole = false
            case .reasoning:
                if held.isEmpty, !rest.utf8.contains(UInt8(ascii: "<")) {
                    chunks.append(.reasoning(isWhole ? content : String(rest)))
                    return
                }
                held += rest
                rest = splitReasoning(into: &chunks)
                isWhole = false
            }
        }
    }

    /// Appends what is held back once the content has ended: the start of an answer that turned out not to be
    /// `<think>`, or the end of a reasoning never closed.
    mutating func flush(into chunks: inout [CompletionChunk]) {
        defer { held = "" }
        guard !held.isEmpty else { return }
        switch phase {
        case .undecided: chunks.append(.text(held))
        case .reasoning: chunks.append(.reasoning(held))
        case .closing, .answer: break
        }
    }

    /// Looks at the text held while undecided: past `<think>`, the reasoning starts (returning the text after the
    /// tag); on a byte that cannot lead to it, the whole content is answer (returning the text held); otherwise waits.
    private mutating func decide() -> Substring {
        let text = held.utf8.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        let compared = min(text.count, Self.opening.count)
        guard text.prefix(compared).elementsEqual(Self.opening.prefix(compared)) else {
            phase = .answer
            defer { held = "" }
            return Substring(held)
        }
        guard compared == Self.opening.count else { return "" }
        phase = .reasoning
        defer { held = "" }
        return Substring(held)[text.index(text.startIndex, offsetBy: compared)...]
    }

    /// Appends the reasoning held up to `</think>` and returns the text after it, or, without a whole `</think>`,
    /// appends all but a trailing part of it (kept held) and returns nothing.
    private mutating func splitReasoning(into chunks: inout [CompletionChunk]) -> Substring {
        let bytes = held.utf8
        var start = bytes.startIndex
        while let tag = bytes[start...].firstIndex(of: UInt8(ascii: "<")) {
            let candidate = bytes[tag...]
            let compared = min(candidate.count, Self.closing.count)
            if candidate.prefix(compared).elementsEqual(Self.closing.prefix(compared)) {
                if !held[..<tag].isEmpty { chunks.append(.reasoning(String(held[..<tag]))) }
                guard compared == Self.closing.count else {
                    held = String(held[tag...])
                    return ""
                }
                phase = .closing
                defer { held = "" }
                return Substring(held)[bytes.index(tag, offsetBy: compared)...]
            }
            start = bytes.index(after: tag)
        }
        chunks.append(.reasoning(held))
        held = ""
        return ""
    }
}
