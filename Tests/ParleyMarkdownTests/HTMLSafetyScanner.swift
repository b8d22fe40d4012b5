/// Scans rendered HTML for anything that could run script: unexpected tags, event handlers, dangerous URLs.
enum HTMLSafetyScanner {
    /// The tags cmark-gfm's HTML renderer produces, and the highlighter's `span`.
    private static let allowedTags: Set<String> = [
        "p", "a", "img", "em", "strong", "del", "code", "pre", "blockquote", "ul", "ol", "li", "hr", "br",
        "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "input", "span",
    ]
    private static let allowedAttributes: Set<String> = [
        "href", "src", "alt", "title", "class", "align", "type", "checked", "disabled", "start", "aria-label",
    ]
    private static let dangerousFragments = [
        "javascript:", "vbscript:", "livescript:", "data:text", "data:image/svg",
        "file:",
    ]
    private static let rawFragments = ["<script", "<iframe", "<svg", "<object", "<embed", "<style", "<math", "<form"]
    private static let namedEntities: [String: String] = [
        "colon": ":", "tab": "\t", "newline": "\n", "amp": "&", "quot": "\"", "apos": "'", "lt": "<", "gt": ">",
        "sol": "/", "lpar": "(", "rpar": ")", "nbsp": " ",
    ]

    /// Human-readable descriptions of every problem found; empty when the HTML is safe.
    static func violations(in html: String) -> [String] {
        let lowered = html.lowercased()
        var problems = rawFragments.filter { lowered.contains($0) }.map { "raw \($0)" }
        for tag in tags(in: html) {
            problems += violations(inTag: tag)
        }
        return problems
    }

    /// The text of every tag (`<...>`, quotes respected) in `html`.
    private static func tags(in html: String) -> [Substring] {
        var tags: [Substring] = []
        var index = html.startIndex
        while let open = html[index...].firstIndex(of: "<") {
            var end = html.index(after: open)
            var quote: Character?
            while end < html.endIndex, quote != nil || html[end] != ">" {
                let character = html[end]
                if let open = quote {
                    if character == open { quote = nil }
                } else if character == "\"" || character == "'" {
                    quote = character
                }
                end = html.index(after: end)
            }
            guard end < html.endIndex else {
                tags.append(html[open...])
                break
            }
            tags.append(html[open...end])
            index = html.index(after: end)
        }
        return tags
    }

    /// Problems in one tag: a tag or attribute cmark would not produce, an event handler, a dangerous URL.
    private static func violations(inTag tag: Substring) -> [String] {
        if tag == "<!-- raw HTML omitted -->" { return [] }
        var body = tag.dropFirst().drop { $0 == "/" }
        let name = String(body.prefix { $0.isLetter || $0.isNumber }).lowercased()
        guard allowedTags.contains(name) else { return ["tag \(tag)"] }
        body = body.dropFirst(name.count)
        var problems: [String] = []
        for (attribute, value) in attributes(in: body) {
            if !allowedAttributes.contains(attribute) || attribute.hasPrefix("on") {
                problems.append("attribute \(attribute) in \(tag)")
            }
            let compact = String(decodeEntities(value).unicodeScalars.filter { $0.value > 0x20 && $0.value != 0x7F })
                .lowercased()
            problems += dangerousFragments.filter { compact.contains($0) }.map { "\($0) in \(tag)" }
        }
        return problems
    }

    /// Attribute names (lowercased) and raw values of a tag body (the text after the tag name).
    private static func attributes(in body: Substring) -> [(String, Substring)] {
        var result: [(String, Substring)] = []
        var rest = body
        while true {
            rest = rest.drop { $0.isWhitespace || $0 == "/" || $0 == ">" }
            let name = rest.prefix { !$0.isWhitespace && $0 != "=" && $0 != ">" && $0 != "/" }
            guard !name.isEmpty else { return result }
            rest = rest.dropFirst(name.count).drop(while: \.isWhitespace)
            var value: Substring = ""
            if rest.first == "=" {
                rest = rest.dropFirst().drop(while: \.isWhitespace)
                if let quote = rest.first, quote == "\"" || quote == "'" {
                    value = rest.dropFirst().prefix { $0 != quote }
                    rest = rest.dropFirst(value.count + 2)
                } else {
                    value = rest.prefix { !$0.isWhitespace && $0 != ">" }
                    rest = rest.dropFirst(value.count)
                }
            }
            result.append((name.lowercased(), value))
        }
    }

    /// Decodes numeric (`&#106;`, `&#x6A;`) and common named (`&colon;`) character references, with or without `;`.
    private static func decodeEntities(_ text: Substring) -> String {
        var decoded = ""
        var rest = text
        while let amp = rest.firstIndex(of: "&") {
            decoded += rest[..<amp]
            rest = rest[rest.index(after: amp)...]
            let reference = rest.prefix { $0.isLetter || $0.isNumber || $0 == "#" }
            var replacement: String?
            if reference.hasPrefix("#x") || reference.hasPrefix("#X") {
                replacement = UInt32(reference.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String($0) }
            } else if reference.hasPrefix("#") {
                replacement = UInt32(reference.dropFirst()).flatMap(Unicode.Scalar.init).map { String($0) }
            } else {
                replacement = namedEntities[reference.lowercased()]
            }
            if let replacement {
                decoded += replacement
                rest = rest.dropFirst(reference.count)
                if rest.first == ";" { rest = rest.dropFirst() }
            } else {
                decoded += "&"
            }
        }
        return decoded + rest
    }
}
