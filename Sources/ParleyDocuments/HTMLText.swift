/// The text of an HTML page as a reader sees it: tags dropped, `script` and `style` left out, block elements on lines
/// of their own, the common entities decoded.
enum HTMLText {
    /// Tags after which the text goes on a new line.
    private static let blocks: Set<String> = [
        "p", "div", "br", "li", "ul", "ol", "tr", "table", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article",
        "header", "footer", "pre", "blockquote", "hr", "dt", "dd", "title",
    ]

    /// The text of `html`.
    static func text(_ html: String) -> String {
        var out = ""
        var rest = Substring(html)
        while let open = rest.firstIndex(of: "<") {
            out += decodeEntities(rest[..<open])
            guard let close = rest[open...].firstIndex(of: ">") else { rest = rest[rest.endIndex...]; break }
            let tag = rest[rest.index(after: open)..<close]
            let name = tag.drop { $0 == "/" }.prefix { $0.isLetter || $0.isNumber }.lowercased()
            rest = rest[rest.index(after: close)...]
            if (name == "script" || name == "style"), !tag.hasPrefix("/") {
                // Their content is not text: skip to the closing tag (or the end).
                let closing = "</\(name)"
                rest = rest.range(of: closing, options: .caseInsensitive).map { rest[$0.lowerBound...] } ?? ""
                continue
            }
            if blocks.contains(name) { out += "\n" }
        }
        out += decodeEntities(rest)
        return out.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .joined(separator: "\n")
            .replacingOccurrences(of: "\n\n\n+", with: "\n\n", options: .regularExpression)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `text` with `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&#39;`, `&apos;`, `&nbsp;` and numeric references decoded.
    private static func decodeEntities(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        var out = ""
        var rest = text
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let tail = rest[amp...]
            guard let semicolon = tail.prefix(12).firstIndex(of: ";") else {
                out += "&"
                rest = rest[rest.index(after: amp)...]
                continue
            }
            let name = tail[tail.index(after: amp)..<semicolon]
            let named = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "#39": "'", "apos": "'", "nbsp": " "]
            if let value = named[String(name)] {
                out += value
            } else if name.hasPrefix("#"), let code = Self.codePoint(name.dropFirst()),
                let scalar = Unicode.Scalar(code)
            {
                out.unicodeScalars.append(scalar)
            } else {
                out += tail[amp...semicolon]
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return out + rest
    }

    private static func codePoint(_ digits: Substring) -> UInt32? {
        digits.hasPrefix("x") || digits.hasPrefix("X") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
    }
}
