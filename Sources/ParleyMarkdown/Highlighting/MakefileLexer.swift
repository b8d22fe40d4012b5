/// Highlights Makefiles line by line: recipe lines (after a tab) as shell with make's `$(…)` references; other lines
/// with the names of targets (section) or assigned variables (variable) first, then directives, references and
/// comments.
struct MakefileLexer {
    /// How deeply this Makefile is embedded.
    let depth: Int

    /// Lexes to the end.
    func lex(_ s: inout SourceScanner) {
        while !s.isAtEnd {
            let end = s.logicalLineEnd(from: s.position)
            let language: LanguageDefinition
            if s.current == UInt8(ascii: "\t") {
                language = .makeRecipe
            } else {
                language = .make
                s.emit(upTo: s.blankEnd(from: s.position), as: nil)
                if let (nameEnd, kind) = head(s, lineEnd: end) { s.emit(upTo: nameEnd, as: kind) }
            }
            s.within(end) { GenericLexer(language: language, depth: depth).lex(&$0) }
            s.emitCharacter()
        }
    }

    /// The end and class of the line's head: the targets before a rule's `:` (section) or the variable before an
    /// assignment (`=`, `:=`, `::=`, `?=`, `+=`, `!=`); nil for other lines and for lines starting with a directive.
    private func head(_ s: SourceScanner, lineEnd: Int) -> (end: Int, kind: TokenClass)? {
        let firstWord = s.bytes[s.position..<s.wordEnd(from: s.position)]
        if let key = WordKey(firstWord, folding: false), LanguageDefinition.make.words[key] != nil { return nil }
        var i = s.position
        while i < lineEnd {
            switch s.bytes[i] {
            case UInt8(ascii: "="):
                return trimmedEnd(before: i, s).map { ($0, .variable) }
            case UInt8(ascii: ":"), UInt8(ascii: "?"), UInt8(ascii: "+"), UInt8(ascii: "!"):
                var operatorEnd = i
                while s.byte(at: operatorEnd) == UInt8(ascii: ":") { operatorEnd += 1 }
                if s.byte(at: operatorEnd) == UInt8(ascii: "=") || s.byte(at: i + 1) == UInt8(ascii: "=") {
                    return trimmedEnd(before: i, s).map { ($0, .variable) }
                }
                if s.bytes[i] == UInt8(ascii: ":") { return trimmedEnd(before: i, s).map { ($0, .section) } }
            case UInt8(ascii: "#"), UInt8(ascii: "$"):
                return nil
            default:
                break
            }
            i += 1
        }
        return nil
    }

    /// The end of the text from the position to `index` without trailing blanks, or nil if it is empty.
    private func trimmedEnd(before index: Int, _ s: SourceScanner) -> Int? {
        var end = index
        while end > s.position, s.bytes[end - 1].isBlank { end -= 1 }
        return end > s.position ? end : nil
    }
}
