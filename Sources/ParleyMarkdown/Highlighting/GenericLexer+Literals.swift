/// The generic lexer's literals: strings with their interpolations, raw strings, heredocs, characters and regular
/// expressions.
extension GenericLexer {
    /// Lexes a string, character, regular expression or heredoc opener at the position; false if none starts there.
    func lexLiteral(_ s: inout SourceScanner, _ state: inout State) -> Bool {
        let byte = s.current
        if let end = rawStringEnd(s) {
            s.emit(upTo: end, as: .string)
        } else if let rule = stringRule(at: s.position, s) {
            lexString(rule, openerAt: s.position, &s)
        } else if language.characterLiterals, byte == UInt8(ascii: "'"), let end = characterEnd(s) {
            s.emit(upTo: end, as: .string)
        } else if language.regexLiterals, byte == UInt8(ascii: "/"), state.regexAllowed,
            s.position >= state.regexFreeUntil
        {
            guard let end = regexEnd(s) else {
                state.regexFreeUntil = s.lineEnd(from: s.position)
                return false
            }
            s.emit(upTo: end, as: .string)
        } else if language.heredocs, let (end, terminator) = heredocOpener(s) {
            s.emit(upTo: end, as: .string)
            state.heredocTerminator = terminator
        } else {
            return false
        }
        return true
    }

    /// The first string rule whose opener is at `index`.
    func stringRule(at index: Int, _ s: SourceScanner) -> StringRule? {
        language.strings.first { s.matches($0.open, at: index) }
    }

    /// Lexes the string that `rule` opens at `opener` (its prefix starting at the position), its interpolated code
    /// and variables included.
    func lexString(_ rule: StringRule, openerAt opener: Int, _ s: inout SourceScanner) {
        let interpolation = depth < Grammar.maximumDepth ? rule.interpolation : nil
        var i = opener + rule.open.count
        while i < s.end {
            let byte = s.bytes[i]
            if let interpolation {
                if let code = interpolation.code, let closer = interpolation.codeCloser, s.matches(code, at: i) {
                    s.emit(upTo: i + code.count, as: .string)
                    GenericLexer(language: language, depth: depth + 1).lex(&s, closer: closer)
                    guard !s.isAtEnd else { return }
                    i = s.position + 1
                    continue
                }
                if interpolation.variableSigils.contains(byte), let end = variableEnd(at: i, s) {
                    s.emit(upTo: i, as: .string)
                    s.emit(upTo: end, as: .variable)
                    i = end
                    continue
                }
            }
            if byte == rule.escape {
                i += 2
            } else if s.matches(rule.close, at: i) {
                i += rule.close.count
                break
            } else if byte == UInt8(ascii: "\n"), !rule.multiline {
                break
            } else {
                i += 1
            }
        }
        s.emit(upTo: i, as: .string)
    }

    /// The end of the variable whose sigil is at `index` (`$name`, `${name}`, `$1`), or nil if none starts there.
    func variableEnd(at index: Int, _ s: SourceScanner) -> Int? {
        let next = s.byte(at: index + 1)
        if next.isWordStart { return s.wordEnd(from: index + 1) }
        if language.specialVariables.contains(next) { return index + 2 }
        guard language.variableBrackets.contains(next) else { return nil }
        return s.bracketEnd(from: index + 1, maxLength: 256, withinLine: true)
    }

    /// The bytes a C++ raw string's delimiter cannot hold.
    private static let notInDelimiters = Array(" ()\\\t\n\"".utf8)

    /// The end of the raw string at the position, or nil if none starts there.
    private func rawStringEnd(_ s: SourceScanner) -> Int? {
        switch language.rawStrings {
        case .hashed(let prefixes, let minimumHashes):
            for prefix in prefixes where s.matches(prefix) {
                let hashesStart = s.position + prefix.count
                var quote = hashesStart
                while s.byte(at: quote) == UInt8(ascii: "#"), quote - hashesStart <= 16 { quote += 1 }
                let hashes = quote - hashesStart
                guard hashes >= minimumHashes, hashes <= 16, s.byte(at: quote) == UInt8(ascii: "\"") else { continue }
                let quotes = s.matches(Array(#"""""#.utf8), at: quote) ? 3 : 1
                let closer =
                    [UInt8](repeating: UInt8(ascii: "\""), count: quotes)
                    + [UInt8](repeating: UInt8(ascii: "#"), count: hashes)
                return s.index(after: closer, from: quote + quotes) ?? s.end
            }
        case .parenthesized(let openers):
            for opener in openers where s.matches(opener) {
                let delimiterStart = s.position + opener.count
                var parenthesis = delimiterStart
                while parenthesis < min(delimiterStart + 16, s.end),
                    !Self.notInDelimiters.contains(s.bytes[parenthesis])
                {
                    parenthesis += 1
                }
                guard s.byte(at: parenthesis) == UInt8(ascii: "(") else { continue }
                let closer = [UInt8(ascii: ")")] + s.bytes[delimiterStart..<parenthesis] + [UInt8(ascii: "\"")]
                return s.index(after: closer, from: parenthesis + 1) ?? s.end
            }
        case nil:
            break
        }
        return nil
    }

    /// The end of the character literal at the position (`'a'`, `'\n'`, `'\u{1F600}'`), or nil if none closes there
    /// (a Rust lifetime, a Haskell prime).
    private func characterEnd(_ s: SourceScanner) -> Int? {
        let first = s.peek()
        guard s.position + 1 < s.end, first != UInt8(ascii: "'"), first != UInt8(ascii: "\n") else { return nil }
        if first == UInt8(ascii: "\\") {
            var i = s.position + 3
            while i < min(s.position + 12, s.end), s.bytes[i] != UInt8(ascii: "\n") {
                if s.bytes[i] == UInt8(ascii: "'") { return i + 1 }
                i += 1
            }
            return nil
        }
        let length = first < 0xC0 ? 1 : first < 0xE0 ? 2 : first < 0xF0 ? 3 : 4
        return s.peek(1 + length) == UInt8(ascii: "'") ? s.position + 2 + length : nil
    }

    /// The end of the regular expression at the position (`/…/flags` on one line; a `/` escaped or in `[…]` does not
    /// close it), or nil.
    private func regexEnd(_ s: SourceScanner) -> Int? {
        guard !s.peek().isWhitespace else { return nil }
        var i = s.position + 1
        var inClass = false
        while i < s.end {
            switch s.bytes[i] {
            case UInt8(ascii: "\n"): return nil
            case UInt8(ascii: "\\") where s.byte(at: i + 1) != UInt8(ascii: "\n"): i += 1
            case UInt8(ascii: "["): inClass = true
            case UInt8(ascii: "]"): inClass = false
            case UInt8(ascii: "/") where !inClass: return s.wordEnd(from: i + 1)
            default: break
            }
            i += 1
        }
        return nil
    }

    /// The end of the heredoc opener at the position (`<<EOF`, `<<-EOF`, `<<~EOF`, `<<'EOF'`, `<<"EOF"`, PHP's
    /// `<<<EOT`) and its terminator, or nil. An unquoted terminator starts with a capital or `_`, so `a<<b` shifts.
    private func heredocOpener(_ s: SourceScanner) -> (end: Int, terminator: ArraySlice<UInt8>)? {
        guard s.current == UInt8(ascii: "<"), s.peek() == UInt8(ascii: "<") else { return nil }
        var i = s.position + 2
        if s.byte(at: i) == UInt8(ascii: "<") { i += 1 }
        if s.byte(at: i) == UInt8(ascii: "-") || s.byte(at: i) == UInt8(ascii: "~") { i += 1 }
        let quote = s.byte(at: i)
        let quoted = quote == UInt8(ascii: "'") || quote == UInt8(ascii: "\"")
        if quoted { i += 1 }
        let first = s.byte(at: i)
        guard quoted ? first.isWordStart : first.isUppercase || first == UInt8(ascii: "_") else { return nil }
        let wordEnd = s.wordEnd(from: i)
        guard !quoted || s.byte(at: wordEnd) == quote else { return nil }
        return (quoted ? wordEnd + 1 : wordEnd, s.bytes[i..<wordEnd])
    }

    /// The end of the heredoc body starting at `index` (a line start): after the terminator on the first line that
    /// holds only it (blanks before, no word byte after), or the end.
    func heredocBodyEnd(from index: Int, terminator: ArraySlice<UInt8>, _ s: SourceScanner) -> Int {
        var lineStart = index
        while lineStart < s.end {
            let textStart = s.blankEnd(from: lineStart)
            let textEnd = textStart + terminator.count
            if s.bytes[textStart..<min(textEnd, s.end)].elementsEqual(terminator), !s.byte(at: textEnd).isWordByte {
                return textEnd
            }
            lineStart = s.lineEnd(from: lineStart) + 1
        }
        return s.end
    }
}
