import ParleyCore
import Testing

@testable import ParleyProviders

/// The `<think>` splitter of OpenAI-compatible content: the same reasoning and answer under every slicing of the
/// content into chunks.
@Suite struct ThinkTagSplitterTests {
    /// A content and what it splits into.
    struct Case: Sendable, CustomTestStringConvertible {
        var content: String
        var reasoning: String
        var answer: String

        var testDescription: String { content.debugDescription }
    }

    /// Contents of at most 18 scalars, each tried under every slicing with at most three cuts and the one at every
    /// scalar (a tag split in up to four pieces anywhere, and any two tags split apart).
    static let cases = [
        Case(content: "<think>a</think>b", reasoning: "a", answer: "b"),
        Case(content: "\n <think></think>b", reasoning: "", answer: "b"),
        Case(content: "<think></think>\r\nA", reasoning: "", answer: "A"),
        Case(content: "<think></think>\nA\n", reasoning: "", answer: "A\n"),
        Case(content: "<think></</think>", reasoning: "</", answer: ""),
        Case(content: "<think></think>A<", reasoning: "", answer: "A<"),
        Case(content: "<think>😀</think>日", reasoning: "😀", answer: "日"),
        // Unclosed: reasoning to the end, a part of the closing tag included.
        Case(content: "<think>abc</thi", reasoning: "abc</thi", answer: ""),
        // Not a leading `<think>`: all answer, whitespace and near misses included.
        Case(content: "<thinking>no", reasoning: "", answer: "<thinking>no"),
        Case(content: "a<think></think>", reasoning: "", answer: "a<think></think>"),
        Case(content: "  <thi", reasoning: "", answer: "  <thi"),
        Case(content: " \t\n ", reasoning: "", answer: " \t\n "),
        Case(content: "<<think>", reasoning: "", answer: "<<think>"),
    ]

    /// The chunks of `pieces` fed in order, then flushed.
    static func split(_ pieces: [String]) -> [CompletionChunk] {
        var splitter = ThinkTagSplitter()
        var chunks: [CompletionChunk] = []
        for piece in pieces { splitter.feed(piece, into: &chunks) }
        splitter.flush(into: &chunks)
        return chunks
    }

    /// Calls `body` with each way to cut `content` between its Unicode scalars at three points or fewer, and with the
    /// cut at every point. The pieces between any two points are made once.
    static func forEverySlicing(of content: String, _ body: ([String]) -> Void) {
        let scalars = Array(content.unicodeScalars)
        let count = scalars.count
        let piece = (0...count).map { start in
            (0...count).map { end in
                start < end ? String(String.UnicodeScalarView(scalars[start..<end])) : ""
            }
        }
        let cuts = max(0, count - 1)
        var pieces: [String] = []
        for mask in 0..<(1 << cuts) where mask.nonzeroBitCount <= 3 || mask == (1 << cuts) - 1 {
            pieces.removeAll(keepingCapacity: true)
            var start = 0
            for index in 0..<cuts where mask & (1 << index) != 0 {
                pieces.append(piece[start][index + 1])
                start = index + 1
            }
            if start < count { pieces.append(piece[start][count]) }
            body(pieces)
        }
    }

    @Test("every slicing gives the same reasoning and answer, reasoning first, never an empty chunk", arguments: cases)
    func everySlicingSplitsAlike(_ example: Case) {
        var failures = 0
        Self.forEverySlicing(of: example.content) { pieces in
            var reasoning = ""
            var answer = ""
            var isOrdered = true
            for chunk in Self.split(pieces) {
                switch chunk {
                case .reasoning(let text):
                    isOrdered = isOrdered && answer.isEmpty && !text.isEmpty
                    reasoning += text
                case .text(let text):
                    isOrdered = isOrdered && !text.isEmpty
                    answer += text
                default:
                    isOrdered = false
                }
            }
            // Checked without #expect, whose bookkeeping would cost more than the split over 2¹⁸ slicings.
            guard !isOrdered || reasoning != example.reasoning || answer != example.answer else { return }
            failures += 1
            if failures <= 3 {
                Issue.record(
                    "\(pieces) gave \(reasoning.debugDescription) and \(answer.debugDescription), ordered: \(isOrdered)"
                )
            }
        }
        #expect(failures == 0)
    }

    @Test("a content that does not open with <think> passes each chunk on as it came")
    func plainContentPassesThrough() {
        #expect(Self.split(["Hello", " <think>", "world"]) == [.text("Hello"), .text(" <think>"), .text("world")])
    }

    @Test("inside the reasoning, only a possible part of </think> is held back")
    func holdsBackOnlyAPossibleTag() {
        var splitter = ThinkTagSplitter()
        var chunks: [CompletionChunk] = []
        splitter.feed("<think>a", into: &chunks)
        splitter.feed("b <c </t", into: &chunks)
        #expect(chunks == [.reasoning("a"), .reasoning("b <c ")])
        splitter.feed("hink>\n\nanswer", into: &chunks)
        #expect(chunks == [.reasoning("a"), .reasoning("b <c "), .text("answer")])
    }
}
