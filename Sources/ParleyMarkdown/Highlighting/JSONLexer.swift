/// Highlights JSON, JSONC and JSON5: a string or bare name followed by `:` is a key (property), other strings are
/// strings; numbers, `true`/`false`/`null` (and JSON5's `NaN`, `Infinity`) and comments.
struct JSONLexer {
    private static let literals = WordKey.keys(of: "true false null NaN Infinity", folding: false)

    /// Lexes to the end.
    func lex(_ s: inout SourceScanner) {
        while !s.isAtEnd {
            let byte = s.current
            let next = s.peek()
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                let end = s.quotedEnd(from: s.position)
                s.emit(upTo: end, as: isKey(before: end, s) ? .property : .string)
            } else if byte.isDigit || ((byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")) && next.isDigit) {
                s.emit(upTo: s.numberEnd(from: s.position + (byte.isDigit ? 0 : 1)), as: .number)
            } else if byte == UInt8(ascii: "/"), next == UInt8(ascii: "/") {
                s.emit(upTo: s.lineEnd(from: s.position), as: .comment)
            } else if byte == UInt8(ascii: "/"), next == UInt8(ascii: "*") {
                s.emit(upTo: s.index(after: Array("*/".utf8), from: s.position + 2) ?? s.end, as: .comment)
            } else if byte.isWordStart || byte == UInt8(ascii: "$") {
                let end = s.wordEnd(from: s.position + 1)
                let word = s.bytes[s.position..<end]
                let isLiteral = WordKey(word, folding: false).map(Self.literals.contains) ?? false
                s.emit(upTo: end, as: isLiteral ? .literal : isKey(before: end, s) ? .property : nil)
            } else {
                s.emitCharacter()
            }
        }
    }

    /// Whether the first byte from `index` on that is not whitespace is `:`.
    private func isKey(before index: Int, _ s: SourceScanner) -> Bool {
        var i = index
        while i < s.end, s.bytes[i].isWhitespace { i += 1 }
        return s.byte(at: i) == UInt8(ascii: ":")
    }
}
