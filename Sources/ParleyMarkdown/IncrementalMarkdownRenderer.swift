/// Turns a growing markdown text into HTML pieces: blocks that can no longer change (append once) and the still-open
/// rest (tail).
public struct IncrementalMarkdownRenderer: Sendable {
    // The text before `committed` has been emitted as `append` HTML. Each render() parses only the pending text after
    // it, preceded by `context` (the carried source of committed link reference definitions, so later references
    // still resolve), so its work is the size of the open tail. A top-level block is final once a later block starts
    // on a complete line, since nothing appended can reopen a closed block, unless a link reference definition further
    // on could still change it. For every way of cutting a text into deltas, the concatenated `append`s plus the last
    // `tail` equal `MarkdownRenderer.html(text)`.
    //
    // Costs: the tail is re-rendered and re-sent on every call, and a block with an unresolved `[x]` holds back
    // everything after it until the end (a definition may still come), so such texts are re-parsed whole each time.

    /// Closes every open container (the blank line ends paragraphs and tables, the unindented HTML comment ends lists
    /// and quotes) and is itself a closed HTML block, so what follows parses as if at the start of a document. The
    /// blank line holds a space so that it cannot merge with a carried line ending in a lone CR.
    private static let separator = Array(" \n<!-- -->\n".utf8)
    private static let separatorLineCount = SourceLines(separator).completeCount

    /// The text so far.
    public private(set) var text = ""
    /// UTF-8 offset into `text` up to which HTML has been appended; always at a line start.
    private var committed = 0
    /// Source parsed before the pending text but not rendered: empty while nothing is committed (the pending text
    /// is the document start), then a separator, which keeps cmark from treating a later pending text as a document
    /// start, followed by every carried span of committed lines, each closed by a separator.
    private var context: [UInt8] = []
    private var contextLineCount = 0

    /// Creates a renderer with no text.
    public init() {}

    /// Adds newly streamed text.
    public mutating func append(_ delta: String) {
        text += delta
    }

    /// Renders what is new since the last call: HTML of blocks that became final, and the HTML of everything after
    /// them, its code highlighted only with `highlightingTail` (a tail that will be rendered again can skip it; the
    /// appended blocks and the last tail always have it).
    public mutating func render(highlightingTail: Bool = true) -> MarkdownUpdate {
        let pending = SourceLines(
            text.utf8.withContiguousStorageIfAvailable { Array($0[committed...]) }
                ?? Array(text.utf8.dropFirst(committed)))
        let document = CmarkDocument(context, pending.bytes)
        let blocks = document.blocks.compactMap { $0.skippingLines(contextLineCount) }
        // Blocks before the last one starting on a complete line are closed. A definition from that block on may
        // still be unfinished (a title can follow on the next line), so links that might use it are not final yet.
        let openLine = blocks.last { $0.startLine <= pending.completeCount }?.startLine ?? 1
        lazy var definitionsUnsettled = (openLine...(pending.completeCount + 1))
            .contains(where: pending.mayBeginDefinition)
        var finalCount = 0
        for (index, block) in blocks.enumerated() where block.startLine < openLine {
            if document.dependsOnLaterDefinitions(block, definitionsUnsettled: definitionsUnsettled) { break }
            if blocks[index + 1].startLine > block.startLine { finalCount = index + 1 }
        }
        let update = MarkdownUpdate(
            append: blocks[..<finalCount].map { document.html(of: $0) }.joined(),
            tail: blocks[finalCount...].map { document.html(of: $0, highlighting: highlightingTail) }.joined())
        if finalCount > 0 {
            commit(blocks[..<finalCount], before: blocks[finalCount].startLine, of: pending)
        }
        return update
    }

    /// Advances `committed` to `boundary`, the first pending line after the committed `blocks`, and carries the
    /// committed source that may hold link reference definitions into `context`. The committed lines are cut at
    /// block starts into spans (a block with the blank lines and definitions after it, or the lines before the
    /// first block); a span with a line that may begin a definition is carried whole, so it parses as it did in
    /// place, definitions inside block quotes and list items included. (cmark's end lines are not used: an HTML
    /// block's can be too small, a setext heading's reaches into the next block.)
    private mutating func commit(
        _ blocks: ArraySlice<CmarkDocument.Block>, before boundary: Int, of pending: SourceLines
    ) {
        if committed == 0 {
            context = Self.separator
            contextLineCount = Self.separatorLineCount
        }
        let cuts = [1] + blocks.map(\.startLine) + [boundary]
        for (first, next) in zip(cuts, cuts.dropFirst()) where first < next {
            let span = first...(next - 1)
            guard span.contains(where: pending.mayBeginDefinition) else { continue }
            var source = pending.bytes(ofLines: span)
            if committed == 0, first == 1, source.starts(with: SourceLines.byteOrderMark) {
                source.removeFirst(SourceLines.byteOrderMark.count)
            }
            context += source + Self.separator
            contextLineCount += span.count + Self.separatorLineCount
        }
        committed += pending.offset(ofLine: boundary)
    }
}
