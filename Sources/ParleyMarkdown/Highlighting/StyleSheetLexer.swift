/// Highlights CSS and SCSS. Each statement is a rule's selector if a `{` ends it, else a declaration (or an at-rule's
/// prelude): selectors give tags, `.class`/`#id` (type), `:pseudo` (meta) and `[attr]`; declarations give the
/// property and its value's numbers, colours, strings, functions and `!important`; SCSS adds `$variables`, `#{…}`
/// and `//` comments.
struct StyleSheetLexer {
    let scss: Bool

    /// Lexes to the end, statement by statement.
    func lex(_ s: inout SourceScanner) {
        while !s.isAtEnd {
            let byte = s.current
            if byte.isWhitespace || byte == UInt8(ascii: "{") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: ";")
            {
                s.emitCharacter()
            } else if let end = commentEnd(s) {
                s.emit(upTo: end, as: .comment)
            } else {
                let (end, isRule) = statementEnd(s)
                s.within(end) { statement in
                    if statement.current == UInt8(ascii: "@") {
                        statement.emit(upTo: nameEnd(from: statement.position + 1, statement), as: .keyword)
                        lexValue(&statement)
                    } else if isRule {
                        lexSelector(&statement)
                    } else {
                        lexDeclaration(&statement)
                    }
                }
            }
        }
    }

    /// The end of the statement at the position and whether it is a rule's selector: the first `{` or `}`, or `;`
    /// outside parentheses (`url(data:…;…)`), that is not in a string or comment.
    private func statementEnd(_ s: SourceScanner) -> (end: Int, isRule: Bool) {
        var i = s.position
        var parentheses = 0
        while i < s.end {
            let byte = s.bytes[i]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                i = s.quotedEnd(from: i)
                continue
            }
            if let end = commentEnd(s, at: i, inParentheses: parentheses > 0) {
                i = end
                continue
            }
            switch byte {
            case UInt8(ascii: "#") where scss && s.byte(at: i + 1) == UInt8(ascii: "{"):
                i = s.bracketEnd(from: i + 1) ?? s.end
                continue
            case UInt8(ascii: "{"): return (i, true)
            case UInt8(ascii: "}"): return (i, false)
            case UInt8(ascii: ";") where parentheses == 0: return (i, false)
            case UInt8(ascii: "("): parentheses += 1
            case UInt8(ascii: ")"): parentheses = max(0, parentheses - 1)
            default: break
            }
            i += 1
        }
        return (s.end, false)
    }

    /// The end of the comment at `index` (the position by default): `/* … */`, or in SCSS `// …` outside parentheses.
    private func commentEnd(_ s: SourceScanner, at index: Int? = nil, inParentheses: Bool = false) -> Int? {
        let i = index ?? s.position
        guard s.byte(at: i) == UInt8(ascii: "/") else { return nil }
        if s.byte(at: i + 1) == UInt8(ascii: "*") { return s.index(after: Array("*/".utf8), from: i + 2) ?? s.end }
        if scss, !inParentheses, s.byte(at: i + 1) == UInt8(ascii: "/") { return s.lineEnd(from: i) }
        return nil
    }

    /// Lexes a selector: element names as tags, `.class`, `#id` and `%placeholder` as types, pseudo-classes as meta,
    /// attribute names in `[…]`.
    private func lexSelector(_ s: inout SourceScanner) {
        var inAttribute = false
        while !s.isAtEnd {
            let byte = s.current
            let next = s.peek()
            if lexShared(&s) { continue }
            if (byte == UInt8(ascii: ".") || byte == UInt8(ascii: "#") || (scss && byte == UInt8(ascii: "%")))
                && isNameStart(next)
            {
                s.emit(upTo: nameEnd(from: s.position + 1, s), as: .type)
            } else if byte == UInt8(ascii: ":") {
                let nameStart = s.position + (next == UInt8(ascii: ":") ? 2 : 1)
                s.emit(upTo: nameEnd(from: nameStart, s), as: .meta)
            } else if isNameStart(byte) {
                s.emit(upTo: nameEnd(from: s.position, s), as: inAttribute ? .attribute : .tag)
            } else if byte.isDigit {
                s.emit(upTo: s.numberEnd(from: s.position), as: .number)
            } else {
                inAttribute = byte == UInt8(ascii: "[") ? true : byte == UInt8(ascii: "]") ? false : inAttribute
                s.emitCharacter()
            }
        }
    }

    /// Lexes a declaration: its property (or SCSS variable) before the `:`, then its value.
    private func lexDeclaration(_ s: inout SourceScanner) {
        let nameEnd = nameEnd(from: s.position, s)
        if isNameStart(s.current), s.byte(at: s.blankEnd(from: nameEnd)) == UInt8(ascii: ":") {
            s.emit(upTo: nameEnd, as: .property)
        }
        lexValue(&s)
    }

    /// Lexes a value or an at-rule's prelude: numbers with units, `#colours`, strings, functions (`url(…)`'s bare
    /// argument as a string) and `!important`.
    private func lexValue(_ s: inout SourceScanner) {
        while !s.isAtEnd {
            let byte = s.current
            let next = s.peek()
            if lexShared(&s) { continue }
            if byte.isDigit || ((byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")) && next.isDigit) {
                var end = s.numberEnd(from: s.position + (byte.isDigit ? 0 : 1))
                if s.byte(at: end) == UInt8(ascii: "%") { end += 1 }
                s.emit(upTo: end, as: .number)
            } else if byte == UInt8(ascii: "#"), next.isAlphanumeric {
                s.emit(upTo: s.wordEnd(from: s.position + 1), as: .number)
            } else if byte == UInt8(ascii: "!"), next.isLetter {
                s.emit(upTo: s.wordEnd(from: s.position + 1), as: .keyword)
            } else if isNameStart(byte) {
                let end = nameEnd(from: s.position, s)
                guard s.byte(at: end) == UInt8(ascii: "(") else {
                    s.emit(upTo: end, as: nil)
                    continue
                }
                let isURL = s.bytes[s.position..<end].map(\.lowercased).elementsEqual("url".utf8)
                s.emit(upTo: end, as: .function)
                s.emitCharacter()
                let argument = s.blankEnd(from: s.position)
                if isURL, s.byte(at: argument) != UInt8(ascii: "\""), s.byte(at: argument) != UInt8(ascii: "'") {
                    s.emit(
                        upTo: s.index(after: [UInt8(ascii: ")")], from: s.position).map { $0 - 1 } ?? s.end, as: .string
                    )
                }
            } else {
                s.emitCharacter()
            }
        }
    }

    /// Lexes what selectors and values share: comments, strings, SCSS `$variables` and `#{…}`; false if none is here.
    private func lexShared(_ s: inout SourceScanner) -> Bool {
        let byte = s.current
        if let end = commentEnd(s) {
            s.emit(upTo: end, as: .comment)
        } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
            s.emit(upTo: s.quotedEnd(from: s.position), as: .string)
        } else if scss, byte == UInt8(ascii: "$"), isNameStart(s.peek()) {
            s.emit(upTo: nameEnd(from: s.position + 1, s), as: .variable)
        } else if scss, byte == UInt8(ascii: "#"), s.peek() == UInt8(ascii: "{") {
            s.emit(upTo: s.bracketEnd(from: s.position + 1) ?? s.end, as: .variable)
        } else {
            return false
        }
        return true
    }

    /// Whether a name (identifier, property, element) can start with `byte`.
    private func isNameStart(_ byte: UInt8) -> Bool { byte.isWordStart || byte == UInt8(ascii: "-") }

    /// The end of the name at `index`: word bytes and `-`.
    private func nameEnd(from index: Int, _ s: SourceScanner) -> Int {
        var i = index
        while i < s.end, s.bytes[i].isWordByte || s.bytes[i] == UInt8(ascii: "-") { i += 1 }
        return i
    }
}
