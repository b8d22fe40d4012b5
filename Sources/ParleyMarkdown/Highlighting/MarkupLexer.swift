/// Highlights HTML and XML: tags, attribute names and values, comments, CDATA, declarations and processing
/// instructions, character references, and the contents of `<script>` and `<style>` as JavaScript and CSS.
struct MarkupLexer {
    /// How deeply this markup is embedded.
    let depth: Int

    private static let commentOpener = Array("<!--".utf8)
    private static let commentCloser = Array("-->".utf8)
    private static let cdataOpener = Array("<![CDATA[".utf8)
    private static let cdataCloser = Array("]]>".utf8)

    /// Lexes to the end.
    func lex(_ s: inout SourceScanner) {
        while !s.isAtEnd {
            let byte = s.current
            if s.matches(Self.commentOpener) {
                s.emit(upTo: s.index(after: Self.commentCloser, from: s.position + 4) ?? s.end, as: .comment)
            } else if s.matches(Self.cdataOpener) {
                s.emit(upTo: s.index(after: Self.cdataCloser, from: s.position + 9) ?? s.end, as: .string)
            } else if byte == UInt8(ascii: "<"), s.peek() == UInt8(ascii: "!") || s.peek() == UInt8(ascii: "?") {
                s.emit(upTo: s.index(after: [UInt8(ascii: ">")], from: s.position) ?? s.end, as: .meta)
            } else if byte == UInt8(ascii: "<"), s.peek(s.peek() == UInt8(ascii: "/") ? 2 : 1).isWordStart {
                lexTag(&s)
            } else if byte == UInt8(ascii: "&"), let end = Self.referenceEnd(s) {
                s.emit(upTo: end, as: .literal)
            } else {
                s.emitCharacter()
            }
        }
    }

    /// Lexes a start or end tag with its attributes; after `<script>` or `<style>`, their contents in their language.
    private func lexTag(_ s: inout SourceScanner) {
        let closing = s.peek() == UInt8(ascii: "/")
        let nameStart = s.position + (closing ? 2 : 1)
        var nameEnd = nameStart
        while nameEnd < s.end, Self.isNameByte(s.bytes[nameEnd]) { nameEnd += 1 }
        let name = s.bytes[nameStart..<nameEnd].map(\.lowercased)
        s.emit(upTo: nameEnd, as: .tag)
        while !s.isAtEnd {
            let byte = s.current
            if byte == UInt8(ascii: ">") || (byte == UInt8(ascii: "/") && s.peek() == UInt8(ascii: ">")) {
                let selfClosing = byte == UInt8(ascii: "/")
                s.emit(upTo: s.position + (selfClosing ? 2 : 1), as: .tag)
                if !closing, !selfClosing { lexRawText(of: name, &s) }
                return
            }
            if byte == UInt8(ascii: "<") { return }
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                s.emit(upTo: s.quotedEnd(from: s.position, escape: nil, multiline: true), as: .string)
            } else if byte == UInt8(ascii: "="), s.position + 1 < s.end, !Self.startsQuotedOrNoValue(s.peek()) {
                s.emitCharacter()
                s.emit(upTo: attributeEnd(s, unquotedValue: true), as: .string)
            } else if Self.endsAttribute(byte) {
                s.emitCharacter()
            } else {
                s.emit(upTo: attributeEnd(s, unquotedValue: false), as: .attribute)
            }
        }
    }

    /// The end of the attribute name at the position, or of the unquoted value (which ends only at whitespace or `>`).
    private func attributeEnd(_ s: SourceScanner, unquotedValue: Bool) -> Int {
        var end = s.position
        while end < s.end {
            let byte = s.bytes[end]
            if unquotedValue ? byte.isWhitespace || byte == UInt8(ascii: ">") : Self.endsAttribute(byte) { break }
            end += 1
        }
        return end
    }

    /// Lexes the contents of `<script>` as JavaScript and of `<style>` as CSS, up to their end tag.
    private func lexRawText(of name: [UInt8], _ s: inout SourceScanner) {
        let grammar: Grammar
        switch name {
        case Array("script".utf8): grammar = .generic(.javascript)
        case Array("style".utf8): grammar = .styleSheet(scss: false)
        default: return
        }
        let end = s.index(ofCaseInsensitive: Array("</".utf8) + name, from: s.position) ?? s.end
        s.within(end) { inner in
            if depth < Grammar.maximumDepth { grammar.lex(&inner, depth: depth + 1) }
        }
    }

    /// The end of the character reference at the position (`&amp;`, `&#38;`, `&#x26;`), or nil.
    private static func referenceEnd(_ s: SourceScanner) -> Int? {
        var i = s.position + 1
        if s.byte(at: i) == UInt8(ascii: "#") { i += 1 }
        let nameStart = i
        while i < min(s.position + 32, s.end), s.bytes[i].isAlphanumeric { i += 1 }
        return i > nameStart && s.byte(at: i) == UInt8(ascii: ";") ? i + 1 : nil
    }

    /// Whether `byte` can be part of a tag name (`svg:rect`, `my-element`).
    private static func isNameByte(_ byte: UInt8) -> Bool {
        byte.isWordByte || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
    }

    /// Whether `byte`, after an attribute's `=`, starts no unquoted value.
    private static func startsQuotedOrNoValue(_ byte: UInt8) -> Bool {
        byte.isWhitespace || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || byte == UInt8(ascii: ">")
    }

    /// Whether `byte` ends an attribute's name or unquoted value.
    private static func endsAttribute(_ byte: UInt8) -> Bool {
        byte.isWhitespace || byte == UInt8(ascii: "=") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "<")
            || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || byte == UInt8(ascii: "/")
    }
}
