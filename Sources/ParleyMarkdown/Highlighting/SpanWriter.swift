/// Writes code as HTML escaped exactly as cmark escapes code (`&`, `<`, `>`, `"`), classed runs wrapped in
/// `<span class="hl-…">`: spans never nest, never hold a line break and are never empty, and adjacent runs of one
/// class share a span.
struct SpanWriter {
    private static let openingTags = TokenClass.allCases.map { Array("<span class=\"\($0.cssClass)\">".utf8) }
    private static let closingTag = Array("</span>".utf8)
    private static let ampersand = Array("&amp;".utf8)
    private static let lessThan = Array("&lt;".utf8)
    private static let greaterThan = Array("&gt;".utf8)
    private static let quotationMark = Array("&quot;".utf8)

    private var html: [UInt8] = []
    /// The class of the span written last and not yet closed.
    private var openClass: TokenClass?

    /// A writer with room for about `capacity` bytes of HTML.
    init(capacity: Int) {
        html.reserveCapacity(capacity)
    }

    /// Appends `bytes` in class `kind` (nil: outside any span); a span opens at its first byte and closes before a
    /// line break or other class.
    mutating func write(_ bytes: ArraySlice<UInt8>, as kind: TokenClass?) {
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                closeSpan()
                html.append(byte)
                continue
            }
            if openClass != kind {
                closeSpan()
                if let kind { html += Self.openingTags[Int(kind.rawValue)] }
                openClass = kind
            }
            switch byte {
            case UInt8(ascii: "&"): html += Self.ampersand
            case UInt8(ascii: "<"): html += Self.lessThan
            case UInt8(ascii: ">"): html += Self.greaterThan
            case UInt8(ascii: "\""): html += Self.quotationMark
            default: html.append(byte)
            }
        }
    }

    /// The HTML written, its last span closed.
    consuming func finish() -> String {
        closeSpan()
        return String(decoding: html, as: UTF8.self)
    }

    /// Closes the open span, if any.
    private mutating func closeSpan() {
        if openClass != nil { html += Self.closingTag }
        openClass = nil
    }
}
