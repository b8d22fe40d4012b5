/// The table-driven lexer: reads code in `language`, writing comments, strings, numbers, words and sigils with their
/// classes and everything else unclassed.
struct GenericLexer {
    let language: LanguageDefinition
    /// How deeply this lexer is embedded, in a host language or a string's interpolation.
    let depth: Int

    /// What the lexer remembers from one token to the next.
    struct State {
        /// No token yet on this line, blanks aside.
        var atLineStart = true
        /// A `/` here would start a regular expression, not divide: nothing, an operator or a keyword came before.
        var regexAllowed = true
        /// No regular expression starts before this index (one was unterminated up to there; keeps lexing linear).
        var regexFreeUntil = 0
        /// The previous token was a `.`: a listed word here is a member's name, not a keyword.
        var afterDot = false
        /// The class of the next word, set by a declaring keyword (`def`, `class`).
        var declaredClass: TokenClass?
        /// The terminator of a heredoc whose body starts on the next line.
        var heredocTerminator: ArraySlice<UInt8>?
        /// Brackets opened inside an interpolation and not closed yet.
        var openBrackets = 0

        /// Records a token after which a `/` divides and no name is declared.
        mutating func endValue() {
            regexAllowed = false
            afterDot = false
            declaredClass = nil
        }
    }

    /// Lexes to the end or, given `closer`, up to the first `closer` that closes no bracket opened since (the end of
    /// an interpolation), which is left unread.
    func lex(_ s: inout SourceScanner, closer: UInt8? = nil) {
        var state = State()
        while !s.isAtEnd {
            let byte = s.current
            if byte == closer, state.openBrackets == 0 { return }
            if byte == UInt8(ascii: "\n") {
                s.emitCharacter()
                state.atLineStart = true
                if let terminator = state.heredocTerminator {
                    state.heredocTerminator = nil
                    s.emit(upTo: heredocBodyEnd(from: s.position, terminator: terminator, s), as: .string)
                }
                continue
            }
            if byte.isWhitespace {
                s.emitCharacter()
                continue
            }
            let atLineStart = state.atLineStart
            state.atLineStart = false
            if lexCommentOrMeta(&s, atLineStart: atLineStart) { continue }
            if lexLiteral(&s, &state) {
                state.endValue()
            } else if byte.isDigit || (byte == UInt8(ascii: ".") && s.peek().isDigit && !endsValue(s.position - 1, s)) {
                s.emit(upTo: s.numberEnd(from: s.position, separator: language.digitSeparator), as: .number)
                state.endValue()
            } else if language.startsIdentifier(byte, next: s.peek()) {
                lexWord(&s, &state)
            } else if lexSigil(&s) {
                state.endValue()
            } else {
                state.regexAllowed = byte != UInt8(ascii: ")") && byte != UInt8(ascii: "]")
                state.afterDot = byte == UInt8(ascii: ".")
                state.declaredClass = nil
                if let closer {
                    if byte == closer { state.openBrackets -= 1 }
                    if byte.closingBracket == closer { state.openBrackets += 1 }
                }
                s.emitCharacter()
            }
        }
    }

    /// Whether the byte at `index` ends a value (a word, a closing bracket), so that a `.` after it is an operator.
    private func endsValue(_ index: Int, _ s: SourceScanner) -> Bool {
        let byte = s.byte(at: index)
        return byte.isWordByte || byte == UInt8(ascii: ")") || byte == UInt8(ascii: "]")
    }

    /// The end of the identifier at `index`.
    func identifierEnd(from index: Int, _ s: SourceScanner) -> Int {
        var i = index + 1
        while i < s.end, language.continuesIdentifier(s.bytes[i]) { i += 1 }
        return i
    }

    /// Lexes a shebang, marker, comment or directive at the position; false if none starts there.
    private func lexCommentOrMeta(_ s: inout SourceScanner, atLineStart: Bool) -> Bool {
        if s.position == 0, s.matches(Array("#!".utf8)), s.peek(2) != UInt8(ascii: "[") {
            s.emit(upTo: s.lineEnd(from: 0), as: .meta)
            return true
        }
        if let marker = language.markers.first(where: { s.matches($0.bytes) }) {
            s.emit(upTo: s.position + marker.bytes.count, as: marker.kind)
            return true
        }
        if let comment = language.blockComments.first(where: { s.matches($0.open) }) {
            s.emit(upTo: blockCommentEnd(comment, s), as: comment.kind)
            return true
        }
        let previous = s.byte(at: s.position - 1)
        if language.lineComments.contains(where: { s.matches($0) }),
            !language.lineCommentsNeedBlank || atLineStart || previous.isBlank || previous == UInt8(ascii: ";")
        {
            s.emit(upTo: s.lineEnd(from: s.position), as: .comment)
            return true
        }
        guard s.current == UInt8(ascii: "#"), let directives = language.directives else { return false }
        switch directives {
        case .preprocessorLines where atLineStart:
            let nameStart = s.blankEnd(from: s.position + 1)
            let nameEnd = s.wordEnd(from: nameStart)
            let name = s.bytes[nameStart..<nameEnd]
            s.emit(upTo: nameEnd, as: .meta)
            let pathStart = s.blankEnd(from: nameEnd)
            if ["include", "import", "include_next"].contains(where: { name.elementsEqual($0.utf8) }),
                s.byte(at: pathStart) == UInt8(ascii: "<"),
                let pathEnd = s.bytes[pathStart..<s.lineEnd(from: pathStart)].firstIndex(of: UInt8(ascii: ">"))
            {
                s.emit(upTo: pathStart, as: nil)
                s.emit(upTo: pathEnd + 1, as: .string)
            }
            return true
        case .hashWords where s.peek().isWordStart:
            s.emit(upTo: s.wordEnd(from: s.position + 1), as: .meta)
            return true
        case .attributes
        where s.peek() == UInt8(ascii: "[") || (s.peek() == UInt8(ascii: "!") && s.peek(2) == UInt8(ascii: "[")):
            let bracket = s.position + (s.peek() == UInt8(ascii: "[") ? 1 : 2)
            s.emit(upTo: s.bracketEnd(from: bracket) ?? s.end, as: .meta)
            return true
        default:
            return false
        }
    }

    /// The end of the block comment opening at the position: after its closer, counting inner openers if it nests.
    private func blockCommentEnd(_ comment: BlockComment, _ s: SourceScanner) -> Int {
        var i = s.position + comment.open.count
        var open = 1
        while i < s.end {
            if s.matches(comment.close, at: i) {
                i += comment.close.count
                open -= 1
                if open == 0 { return i }
            } else if comment.nests, s.matches(comment.open, at: i) {
                i += comment.open.count
                open += 1
            } else {
                i += 1
            }
        }
        return s.end
    }

    /// Lexes the word at the position: a string's prefix, a listed word, a declared name, a call (`name(`, `name!(`
    /// for macros) or a type by its capital.
    private func lexWord(_ s: inout SourceScanner, _ state: inout State) {
        let start = s.position
        let end = identifierEnd(from: start, s)
        let word = s.bytes[start..<end]
        if let rule = stringRule(at: end, s), let prefix = WordKey(word, folding: true),
            language.stringPrefixes.contains(prefix)
        {
            lexString(rule, openerAt: end, &s)
            state.endValue()
            return
        }
        let key = WordKey(word, folding: language.caseInsensitive)
        let listed = state.afterDot ? nil : key.flatMap { language.words[$0] }
        var kind = listed == .keyword ? .keyword : state.declaredClass ?? listed
        var tokenEnd = end
        if kind == nil {
            let next = s.byte(at: end)
            let afterNext = s.byte(at: end + 1)
            if language.bangMacros, next == UInt8(ascii: "!"),
                afterNext == UInt8(ascii: "(") || afterNext == UInt8(ascii: "[") || afterNext == UInt8(ascii: "{")
            {
                kind = .function
                tokenEnd += 1
            } else if next == UInt8(ascii: "(") {
                kind = .function
            } else if language.capitalizedTypes, word.first!.isUppercase, word.contains(where: \.isLowercase) {
                kind = .type
            }
        }
        state.declaredClass = kind == .keyword ? key.flatMap { language.declarations[$0] } : nil
        state.regexAllowed = kind == .keyword
        state.afterDot = false
        s.emit(upTo: tokenEnd, as: kind)
    }

    /// Lexes `@name`, a variable or a `:symbol` at the position; false if none starts there.
    private func lexSigil(_ s: inout SourceScanner) -> Bool {
        let byte = s.current
        if byte == UInt8(ascii: "@"), let kind = language.atSigil {
            var nameStart = s.position + 1
            if kind == .variable, s.byte(at: nameStart) == byte { nameStart += 1 }
            guard s.byte(at: nameStart).isWordStart else { return false }
            var end = identifierEnd(from: nameStart, s)
            while kind == .meta, s.byte(at: end) == UInt8(ascii: "."), s.byte(at: end + 1).isWordStart {
                end = identifierEnd(from: end + 1, s)
            }
            s.emit(upTo: end, as: kind)
            return true
        }
        if language.variableSigils.contains(byte), let end = variableEnd(at: s.position, s) {
            s.emit(upTo: end, as: .variable)
            return true
        }
        let previous = s.byte(at: s.position - 1)
        if language.colonSymbols, byte == UInt8(ascii: ":"), s.peek().isWordStart, !previous.isWordByte,
            previous != byte
        {
            s.emit(upTo: identifierEnd(from: s.position + 1, s), as: .string)
            return true
        }
        return false
    }
}
