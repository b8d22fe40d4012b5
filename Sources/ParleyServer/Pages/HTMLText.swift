/// Text made safe to put in HTML, as element content or a quoted attribute value (the escapes mustache uses).
enum HTMLText {
    /// `text` with `&`, `<`, `>`, `"` and `'` escaped.
    static func escaped(_ text: String) -> String {
        var html = ""
        html.reserveCapacity(text.utf8.count)
        for character in text { append(character, to: &html) }
        return html
    }

    /// Appends one character, escaped.
    static func append(_ character: Character, to html: inout String) {
        switch character {
        case "&": html += "&amp;"
        case "<": html += "&lt;"
        case ">": html += "&gt;"
        case "\"": html += "&quot;"
        case "'": html += "&#39;"
        default: html.append(character)
        }
    }
}
