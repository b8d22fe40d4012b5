/// Highlights INI-style files and TOML: `[section]` and `[[table]]` lines, keys before `=` (or `:` in INI) as
/// properties, and values: strings, numbers and dates, booleans, comments.
struct ConfigLexer {
    let toml: Bool

    private static let booleans = WordKey.keys(of: "true false", folding: true)
    private static let tripleQuotes = [#"""""#, "'''"].map { Array($0.utf8) }
    /// Bytes that end an INI key: quotes and comment markers (no `=` follows on the line then).
    private static let notInINIKeys = Array("\"'#;\n[".utf8)
    /// Bytes that continue a number, date or time after its first digit.
    private static let inNumbers = Array("_:.+-".utf8)

    /// Lexes to the end, line by line.
    func lex(_ s: inout SourceScanner) {
        var atLineStart = true
        while !s.isAtEnd {
            let byte = s.current
            if byte.isWhitespace {
                atLineStart = atLineStart || byte == UInt8(ascii: "\n")
                s.emitCharacter()
                continue
            }
            if atLineStart, byte == UInt8(ascii: "[") {
                let lineEnd = s.lineEnd(from: s.position)
                let close = s.bytes[s.position..<lineEnd].lastIndex(of: UInt8(ascii: "]")) ?? lineEnd - 1
                s.emit(upTo: close + 1, as: .section)
            } else if atLineStart, let end = keyEnd(s) {
                s.emit(upTo: end, as: .property)
            } else {
                lexValue(&s, atLineStart: atLineStart)
            }
            atLineStart = false
        }
    }

    /// The end of the key at the position (trailing blanks excluded) if `=` (or `:` in INI) follows it on this line:
    /// in TOML bare and quoted keys joined by dots, in INI any text without quotes or comment markers.
    private func keyEnd(_ s: SourceScanner) -> Int? {
        var i = s.position
        var keyEnd = i
        while i < s.end {
            let byte = s.bytes[i]
            if byte == UInt8(ascii: "=") || (!toml && byte == UInt8(ascii: ":")) {
                return keyEnd > s.position ? keyEnd : nil
            }
            if toml, byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                i = s.quotedEnd(from: i, escape: byte == UInt8(ascii: "'") ? nil : UInt8(ascii: "\\"))
                keyEnd = i
                continue
            }
            let isKeyByte =
                toml
                ? byte.isWordByte || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte.isBlank
                : !Self.notInINIKeys.contains(byte)
            guard isKeyByte else { return nil }
            i += 1
            if !byte.isBlank { keyEnd = i }
        }
        return nil
    }

    /// Lexes one token of a value: a comment, string, number or date, boolean, inline table key, or another byte.
    private func lexValue(_ s: inout SourceScanner, atLineStart: Bool) {
        let byte = s.current
        let afterBlank = atLineStart || s.byte(at: s.position - 1).isBlank
        if byte == UInt8(ascii: "#") || (!toml && byte == UInt8(ascii: ";")), toml || afterBlank {
            s.emit(upTo: s.lineEnd(from: s.position), as: .comment)
        } else if toml, let quotes = Self.tripleQuotes.first(where: { s.matches($0) }) {
            let end = s.index(after: quotes, from: s.position + 3) ?? s.end
            s.emit(upTo: end, as: .string)
        } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
            let escape = toml && byte == UInt8(ascii: "'") ? nil : UInt8(ascii: "\\")
            s.emit(upTo: s.quotedEnd(from: s.position, escape: escape), as: .string)
        } else if byte.isDigit || ((byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")) && s.peek().isDigit) {
            var end = s.position + 1
            while end < s.end, s.bytes[end].isAlphanumeric || Self.inNumbers.contains(s.bytes[end]) { end += 1 }
            s.emit(upTo: end, as: .number)
        } else if byte.isWordStart {
            let end = s.wordEnd(from: s.position)
            let isBoolean = WordKey(s.bytes[s.position..<end], folding: !toml).map(Self.booleans.contains) ?? false
            let isKey = toml && s.byte(at: s.blankEnd(from: end)) == UInt8(ascii: "=")
            s.emit(upTo: end, as: isBoolean ? .literal : isKey ? .property : nil)
        } else {
            s.emitCharacter()
        }
    }
}
