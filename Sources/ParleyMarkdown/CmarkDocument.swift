import CCmarkGFM
import Foundation

/// A cmark-gfm parse of markdown with Parley's extensions and link policy; owns the cmark tree and frees it on deinit.
final class CmarkDocument {
    // Not Sendable, and never escapes the call that created it: it holds raw cmark pointers.

    /// A top-level block with the 1-based source line it starts on.
    struct Block {
        fileprivate let node: OpaquePointer
        /// First source line.
        let startLine: Int

        /// The block with its line counted from after the first `count` lines, or nil if it starts within them.
        func skippingLines(_ count: Int) -> Block? {
            startLine > count ? Block(node: node, startLine: startLine - count) : nil
        }
    }

    /// Safe mode: raw HTML is omitted and `javascript:`/`vbscript:`/`file:`/most `data:` URLs are blanked.
    private static let options = CMARK_OPT_DEFAULT
    private static let extensionNames = ["table", "strikethrough", "autolink", "tagfilter", "tasklist"]
    /// Registers the core extensions exactly once (the C function itself is not thread-safe).
    private static let extensionsRegistered: Void = cmark_gfm_core_extensions_ensure_registered()
    /// cmark-gfm 0.29 toggles process-wide "special character" tables for extensions (strikethrough, autolink,
    /// table) at the start and end of inline parsing, so concurrent parses corrupt each other; parses are serialised.
    private static let parseLock = NSLock()

    private let parser: OpaquePointer
    private let root: OpaquePointer
    /// The math extension attached to `parser`; released after it.
    private let math: MathExtension
    /// The document's top-level blocks in source order.
    let blocks: [Block]

    /// Parses the concatenation of `parts` (UTF-8) as one document, with formulas, and applies `LinkPolicy` to every
    /// link and image.
    init(_ parts: [UInt8]...) {
        _ = Self.extensionsRegistered
        let math = MathExtension()
        var hasMarkers = false
        (parser, root) = Self.parseLock.withLock {
            let parser: OpaquePointer = cmark_parser_new(Self.options)
            for name in Self.extensionNames {
                cmark_parser_attach_syntax_extension(parser, cmark_find_syntax_extension(name))
            }
            cmark_parser_attach_syntax_extension(parser, math.pointer)
            for part in parts where !part.isEmpty {
                let marked = EscapedMathDelimiters.marking(part) ?? part
                hasMarkers = hasMarkers || marked.contains(EscapedMathDelimiters.markerPrefix[0])
                marked.withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) { cmark_parser_feed(parser, $0.baseAddress, $0.count) }
                }
            }
            return (parser, cmark_parser_finish(parser))
        }
        self.math = math
        blocks = Self.topLevelBlocks(of: root)
        if hasMarkers { restoreEscapedBrackets() }
        applyLinkPolicy()
    }

    deinit {
        cmark_node_free(root)
        cmark_parser_free(parser)
    }

    /// HTML of the whole document.
    func html() -> String { render(root) }

    /// HTML of one top-level block; concatenating all blocks' HTML gives `html()`. Without `highlighting`, code
    /// keeps cmark's plain text (for a tail that will be rendered again).
    func html(of block: Block, highlighting: Bool = true) -> String { render(block.node, highlighting: highlighting) }

    /// Whether a link reference definition further on could still change the block: it has text with `[` or `]`
    /// outside code (a reference that may yet resolve) or, if `definitionsUnsettled`, any link or image (it may have
    /// resolved through a definition that is still being written).
    func dependsOnLaterDefinitions(_ block: Block, definitionsUnsettled: @autoclosure () -> Bool) -> Bool {
        var depends = false
        forEachNode(under: block.node) { node in
            switch cmark_node_get_type(node) {
            case CMARK_NODE_TEXT:
                if let literal = cmark_node_get_literal(node), strpbrk(literal, "[]") != nil { depends = true }
            case CMARK_NODE_LINK, CMARK_NODE_IMAGE:
                if !depends, definitionsUnsettled() { depends = true }
            default:
                break
            }
        }
        return depends
    }

    private func render(_ node: OpaquePointer, highlighting: Bool = true) -> String {
        guard let html = cmark_render_html(node, Self.options, cmark_parser_get_syntax_extensions(parser)) else {
            return ""
        }
        defer { free(html) }
        let named =
            strstr(html, TaskItemLabel.checkbox) != nil
            ? TaskItemLabel.naming(checkboxesIn: html, labels: taskItemLabels(under: node)) : String(cString: html)
        let rewritesCode = strstr(html, highlighting ? CodeBlockHTML.opening : CodeBlockHTML.mathOpening) != nil
        let highlighted = rewritesCode ? CodeBlockHTML.rewriting(named, highlighting: highlighting) : named
        return FormulaHTML.mayHoldFormula(html) ? FormulaHTML.rewriting(highlighted) : highlighted
    }

    /// The accessible names of the task list items under `node` (itself included), in document order.
    private func taskItemLabels(under node: OpaquePointer) -> [String] {
        var labels: [String] = []
        forEachNode(under: node) { current in
            guard cmark_node_get_type(current) == CMARK_NODE_ITEM, let type = cmark_node_get_type_string(current),
                strcmp(type, "tasklist") == 0
            else { return }
            labels.append(taskItemLabel(of: current))
        }
        return labels
    }

    /// The plain text of a task list item, without its nested lists (their items have checkboxes of their own):
    /// literal text and code, a space for each line break and block, read until `TaskItemLabel` has enough.
    private func taskItemLabel(of item: OpaquePointer) -> String {
        var label = TaskItemLabel()
        let iterator = cmark_iter_new(item)
        defer { cmark_iter_free(iterator) }
        while !label.isFull, cmark_iter_next(iterator) != CMARK_EVENT_DONE {
            guard cmark_iter_get_event_type(iterator) == CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator)
            else {
                continue
            }
            let type = cmark_node_get_type(node)
            if type.rawValue & UInt32(CMARK_NODE_TYPE_MASK) == UInt32(CMARK_NODE_TYPE_BLOCK) { label.append(" ") }
            switch type {
            case CMARK_NODE_LIST:
                cmark_iter_reset(iterator, node, CMARK_EVENT_EXIT)
            case CMARK_NODE_TEXT, CMARK_NODE_CODE, CMARK_NODE_CODE_BLOCK:
                if let literal = cmark_node_get_literal(node) { label.append(String(cString: literal)) }
            case CMARK_NODE_SOFTBREAK, CMARK_NODE_LINEBREAK:
                label.append(" ")
            default:
                break
            }
        }
        return label.text
    }

    /// Gives back the escaped brackets that did not become math (see `EscapedMathDelimiters`): bare in text, link
    /// URLs and titles and info strings, where cmark resolves escapes, and with their backslash in code.
    private func restoreEscapedBrackets() {
        forEachNode(under: root) { node in
            switch cmark_node_get_type(node) {
            case CMARK_NODE_TEXT:
                Self.restore(cmark_node_get_literal(node), keepingBackslash: false) { cmark_node_set_literal(node, $0) }
            case CMARK_NODE_CODE, CMARK_NODE_CODE_BLOCK:
                Self.restore(cmark_node_get_literal(node), keepingBackslash: true) { cmark_node_set_literal(node, $0) }
                Self.restore(cmark_node_get_fence_info(node), keepingBackslash: false) {
                    cmark_node_set_fence_info(node, $0)
                }
            case CMARK_NODE_LINK, CMARK_NODE_IMAGE:
                Self.restore(cmark_node_get_url(node), keepingBackslash: false) { cmark_node_set_url(node, $0) }
                Self.restore(cmark_node_get_title(node), keepingBackslash: false) { cmark_node_set_title(node, $0) }
            default:
                break
            }
        }
    }

    /// Calls `set` with `text` restored when it holds a marker.
    private static func restore(
        _ text: UnsafePointer<CChar>?, keepingBackslash: Bool, set: (String) -> Void
    ) {
        guard let text, EscapedMathDelimiters.isMarked(text) else { return }
        let bytes = UnsafeBufferPointer(
            start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), count: strlen(text))
        set(String(decoding: EscapedMathDelimiters.restoring(bytes, keepingBackslash: keepingBackslash), as: UTF8.self))
    }

    /// Blanks the URL of every link and image that `LinkPolicy` rejects (cmark renders it as `href=""`/`src=""`).
    private func applyLinkPolicy() {
        forEachNode(under: root) { node in
            let type = cmark_node_get_type(node)
            guard type == CMARK_NODE_LINK || type == CMARK_NODE_IMAGE, let url = cmark_node_get_url(node),
                !LinkPolicy.allows(String(cString: url), isImage: type == CMARK_NODE_IMAGE)
            else { return }
            cmark_node_set_url(node, "")
        }
    }

    /// Calls `body` once for `node` and each of its descendants, parents first.
    private func forEachNode(under node: OpaquePointer, _ body: (OpaquePointer) -> Void) {
        let iterator = cmark_iter_new(node)
        defer { cmark_iter_free(iterator) }
        while cmark_iter_next(iterator) != CMARK_EVENT_DONE {
            if cmark_iter_get_event_type(iterator) == CMARK_EVENT_ENTER, let current = cmark_iter_get_node(iterator) {
                body(current)
            }
        }
    }

    /// The children of `root` with their start lines. When the table extension turns the last line(s) of a paragraph
    /// into a table header, the paragraph lines before it stay a separate paragraph without a position (line 0);
    /// it is given the table's start line so the two are only ever split off together.
    private static func topLevelBlocks(of root: OpaquePointer) -> [Block] {
        var blocks: [Block] = []
        var child = cmark_node_first_child(root)
        while let node = child {
            blocks.append(Block(node: node, startLine: Int(cmark_node_get_start_line(node))))
            child = cmark_node_next(node)
        }
        for index in blocks.indices.reversed().dropFirst() where blocks[index].startLine == 0 {
            blocks[index] = Block(node: blocks[index].node, startLine: blocks[index + 1].startLine)
        }
        return blocks
    }
}
