import CCmarkGFM

/// The cmark-gfm inline extension that turns each `MathSpan` into a code span marked as a formula. One is made for
/// each parse, since it carries that parse's closer searches; it must outlive the parser it is attached to.
final class MathExtension {
    // Not Sendable, and never escapes the document that made it: it holds a raw cmark pointer, and cmark calls it only
    // from inside that document's parse.

    /// The cmark extension, whose private data points back at this object.
    let pointer: OpaquePointer
    /// The searches of the subject being read, and which subject that is (its first line and column).
    private var closers = MathSpan.CloserSearch()
    private var subject: (line: Int32, column: Int32) = (0, 0)

    /// Creates the extension: it is called at `$` and at the first byte of the escaped-bracket markers.
    init() {
        pointer = cmark_syntax_extension_new("parley-math")
        let memory = cmark_get_default_mem_allocator()
        var triggers: UnsafeMutablePointer<cmark_llist>?
        for byte in [UInt8(ascii: "$"), EscapedMathDelimiters.markerPrefix[0]] {
            triggers = cmark_llist_append(memory, triggers, UnsafeMutableRawPointer(bitPattern: UInt(byte)))
        }
        cmark_syntax_extension_set_special_inline_chars(pointer, triggers)
        cmark_syntax_extension_set_match_inline_func(pointer, Self.match)
        cmark_syntax_extension_set_private(pointer, Unmanaged.passUnretained(self).toOpaque(), nil)
    }

    deinit {
        cmark_syntax_extension_free(cmark_get_default_mem_allocator(), pointer)
    }

    /// The formula node for the math opening at the inline parser's position, which it moves past the formula; nil
    /// (the parser unmoved) when no formula opens there.
    private static let match: cmark_match_inline_func = { extensionPointer, _, _, _, inlineParser in
        guard let extensionPointer, let inlineParser, let owner = cmark_syntax_extension_get_private(extensionPointer)
        else { return nil }
        return Unmanaged<MathExtension>.fromOpaque(owner).takeUnretainedValue().formula(at: inlineParser)
    }

    /// See `match`.
    private func formula(at inlineParser: OpaquePointer) -> OpaquePointer? {
        let offset = cmark_inline_parser_get_offset(inlineParser)
        let current = (
            cmark_inline_parser_get_line(inlineParser), cmark_inline_parser_get_column(inlineParser) - offset
        )
        if current != subject {
            subject = current
            closers = MathSpan.CloserSearch()
        }
        let bytes = UnsafeBufferPointer(
            start: parley_inline_subject_bytes(inlineParser), count: Int(parley_inline_subject_length(inlineParser)))
        guard let span = MathSpan.find(in: bytes, at: Int(offset), closers: &closers) else { return nil }
        let node = cmark_node_new(CMARK_NODE_CODE)
        cmark_node_set_literal(node, span.markedSource)
        cmark_inline_parser_set_offset(inlineParser, Int32(span.end))
        return node
    }
}
