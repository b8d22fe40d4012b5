/// Paces the HTML of a streaming reply: final blocks go out once, and the open tail is re-sent only when it changed and
/// a byte budget tied to the text received allows it, so a long reply costs a bounded multiple of its final HTML.
public struct MarkdownStream: Sendable {
    // Re-sending the whole tail at every event would cost O(n²) bytes for a long open block (a paragraph, a list, a
    // code fence). Instead every byte of source text earns one and a half bytes of tail credit, and a changed tail
    // goes out only when the credit covers its size: the tail bytes sent stay under 1.5 times the source (plus the
    // fresh tails that follow a committed block, which are small). Between tails, clients show the raw `text` of each
    // event in place, so the reply still grows smoothly.
    //
    // Rendering is skipped when its result would not be sent: no block can become final without a new complete line,
    // and a tail that cannot be paid for now (judged by the last one's size) would be held back anyway.

    /// Credit is counted in half bytes: a source byte earns three, a tail byte costs two.
    private static let creditPerSourceByte = 3
    private static let creditPerTailByte = 2

    private var renderer = IncrementalMarkdownRenderer()
    private var lastTail = ""
    /// Half bytes of tail that may be sent now.
    private var credit = 0
    private var hasSentTail = false
    /// Text arrived since the last render, and whether it completed a line.
    private var hasUnrenderedText = false
    private var hasUnrenderedLineEnd = false

    /// Whether the last call held back a changed tail, so a final call would still send something.
    public private(set) var isHoldingTail = false

    /// Creates a stream with no text.
    public init() {}

    /// The text so far.
    public var text: String { renderer.text }

    /// Adds newly streamed text.
    public mutating func append(_ delta: String) {
        renderer.append(delta)
        credit += delta.utf8.count * Self.creditPerSourceByte
        hasUnrenderedText = hasUnrenderedText || !delta.isEmpty
        hasUnrenderedLineEnd =
            hasUnrenderedLineEnd || delta.utf8.contains { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }
    }

    /// What to send now: the newly final blocks, and the tail when it changed and is due (always when `final`, when a
    /// block was just committed, and for the first one); an open code block is highlighted once it is final.
    public mutating func next(final: Bool) -> StreamedHTML {
        if !final, hasSentTail, !hasUnrenderedLineEnd, credit < lastTail.utf8.count * Self.creditPerTailByte {
            isHoldingTail = isHoldingTail || hasUnrenderedText
            hasUnrenderedText = false
            return StreamedHTML(append: "", tail: nil)
        }
        let update = renderer.render(highlightingTail: final)
        hasUnrenderedText = false
        hasUnrenderedLineEnd = false
        isHoldingTail = false
        guard update.tail != lastTail else { return StreamedHTML(append: update.append, tail: nil) }
        let cost = update.tail.utf8.count * Self.creditPerTailByte
        guard final || !update.append.isEmpty || !hasSentTail || credit >= cost else {
            isHoldingTail = true
            return StreamedHTML(append: update.append, tail: nil)
        }
        credit = max(0, credit - cost)
        lastTail = update.tail
        hasSentTail = true
        return StreamedHTML(append: update.append, tail: update.tail)
    }
}
