/// Rewrites the fenced code blocks of cmark's HTML: a `math` block becomes a displayed formula, and a block in a
/// language `CodeHighlighter` knows gets its tokens marked; any other stays as cmark wrote it. cmark escapes the text
/// of every block (and omits raw HTML), so each `<pre><code class="language-` in its output opens a fenced block.
enum CodeBlockHTML {
    /// How cmark opens a fenced block with a language.
    static let opening = #"<pre><code class="language-"#
    /// How cmark opens a `math` block.
    static let mathOpening = #"<pre><code class="language-math">"#
    private static let openingBytes = Array(opening.utf8)
    private static let closing = Array("</code></pre>".utf8)

    /// `html` with its fenced blocks rewritten (without `highlighting`, only its `math` blocks).
    static func rewriting(_ html: String, highlighting: Bool = true) -> String {
        let bytes = Array(html.utf8)
        var rewritten: [UInt8] = []
        rewritten.reserveCapacity(bytes.count * 2)
        var rest = bytes[...]
        while let open = rest.firstRange(of: openingBytes),
            let quote = rest[open.upperBound...].firstIndex(of: UInt8(ascii: "\"")),
            rest[quote...].starts(with: Array("\">".utf8)),
            let close = rest[(quote + 2)...].firstRange(of: closing)
        {
            rewritten += rest[..<open.lowerBound]
            let language = rest[open.upperBound..<quote]
            let code = rest[(quote + 2)..<close.lowerBound]
            rewritten +=
                block(language: language, code: code, highlighting: highlighting)
                ?? Array(rest[open.lowerBound..<close.upperBound])
            rest = rest[close.upperBound...]
        }
        rewritten += rest
        return String(decoding: rewritten, as: UTF8.self)
    }

    /// The new HTML of one block, from its language and its code as cmark escaped them; nil to keep it.
    private static func block(language: ArraySlice<UInt8>, code: ArraySlice<UInt8>, highlighting: Bool) -> [UInt8]? {
        var html: [UInt8]
        if language.elementsEqual("math".utf8) {
            html = Array(#"<pre><code class="math math-display">"#.utf8)
            html += code
        } else {
            guard highlighting else { return nil }
            let name = String(decoding: unescaped(language), as: UTF8.self)
            let text = String(decoding: unescaped(code), as: UTF8.self)
            guard let highlighted = CodeHighlighter.highlighted(text, language: name) else { return nil }
            html = openingBytes
            html += language
            html += Array("\">".utf8)
            html += highlighted.utf8
        }
        return html + closing
    }

    /// Text escaped by cmark (`&amp;`, `&lt;`, `&gt;`, `&quot;`; any other `&` stays) made plain again.
    private static func unescaped(_ escaped: ArraySlice<UInt8>) -> [UInt8] {
        var plain: [UInt8] = []
        plain.reserveCapacity(escaped.count)
        var index = escaped.startIndex
        while index < escaped.endIndex {
            if escaped[index] == UInt8(ascii: "&"),
                let (entity, character) = entities.first(where: { escaped[index...].starts(with: $0.0) })
            {
                plain.append(character)
                index += entity.count
            } else {
                plain.append(escaped[index])
                index += 1
            }
        }
        return plain
    }

    /// The four escapes cmark writes in code.
    private static let entities: [([UInt8], UInt8)] = [
        (Array("&amp;".utf8), UInt8(ascii: "&")), (Array("&lt;".utf8), UInt8(ascii: "<")),
        (Array("&gt;".utf8), UInt8(ascii: ">")), (Array("&quot;".utf8), UInt8(ascii: "\"")),
    ]
}
