/// Highlights YAML: mapping keys (property), comments, quoted strings, block scalars' text (string), anchors and
/// aliases (variable), tags (type), document markers and directives (meta), and plain scalars that are numbers or
/// booleans and nulls (literal); other plain scalars stay unclassed.
struct YAMLLexer {
    private static let literals = WordKey.keys(of: "true false yes no on off null", folding: true)
    private static let documentMarkers = ["---", "..."].map { Array($0.utf8) }
    private static let flowIndicators = Array(",[]{}".utf8)

    /// What the lexer carries from token to token.
    private struct State {
        /// The indentation of the current line.
        var lineIndent = 0
        /// The indentation of the line that opened a block scalar (`|`, `>`): deeper and blank lines are its text.
        var blockScalarIndent: Int?
        /// How many flow collections (`[…]`, `{…}`) are open.
        var flowDepth = 0
    }

    /// Lexes to the end.
    func lex(_ s: inout SourceScanner) {
        var state = State()
        var atLineStart = true
        while !s.isAtEnd {
            if atLineStart {
                atLineStart = false
                if lexLineStart(&s, &state) { continue }
            }
            if s.current == UInt8(ascii: "\n") {
                atLineStart = true
                s.emitCharacter()
            } else {
                lexToken(&s, &state)
            }
        }
    }

    /// Lexes what a line start decides: a block scalar's line of text, a document marker or a directive; false if
    /// the line holds none of them.
    private func lexLineStart(_ s: inout SourceScanner, _ state: inout State) -> Bool {
        let textStart = s.blankEnd(from: s.position)
        let lineEnd = s.lineEnd(from: s.position)
        state.lineIndent = textStart - s.position
        if let opener = state.blockScalarIndent, textStart == lineEnd || state.lineIndent > opener {
            s.emit(upTo: textStart, as: nil)
            s.emit(upTo: lineEnd, as: .string)
            return true
        }
        state.blockScalarIndent = nil
        guard state.lineIndent == 0 else { return false }
        if s.current == UInt8(ascii: "%") {
            s.emit(upTo: lineEnd, as: .meta)
        } else if Self.documentMarkers.contains(where: { s.matches($0) }),
            s.peek(3).isWhitespace || s.position + 3 >= s.end
        {
            s.emit(upTo: s.position + 3, as: .meta)
        } else {
            return false
        }
        return true
    }

    /// Lexes the token at the position (not a line feed).
    private func lexToken(_ s: inout SourceScanner, _ state: inout State) {
        let byte = s.current
        let nextIsSpace = s.peek().isWhitespace || s.position + 1 >= s.end
        if byte.isWhitespace || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ",") {
            s.emitCharacter()
        } else if byte == UInt8(ascii: "#"), s.position == 0 || s.byte(at: s.position - 1).isWhitespace {
            s.emit(upTo: s.lineEnd(from: s.position), as: .comment)
        } else if byte == UInt8(ascii: "-") || byte == UInt8(ascii: "?"), nextIsSpace {
            s.emitCharacter()
        } else if byte == UInt8(ascii: "&") || byte == UInt8(ascii: "*") || byte == UInt8(ascii: "!"), !nextIsSpace {
            var end = s.position + 1
            while end < s.end, !s.bytes[end].isWhitespace, !Self.flowIndicators.contains(s.bytes[end]) { end += 1 }
            s.emit(upTo: end, as: byte == UInt8(ascii: "!") ? .type : .variable)
        } else if byte == UInt8(ascii: "|") || byte == UInt8(ascii: ">"), state.flowDepth == 0, opensBlockScalar(s) {
            state.blockScalarIndent = state.lineIndent
            s.emit(upTo: s.wordEnd(from: s.position + 1), as: .meta)
        } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
            let escape = byte == UInt8(ascii: "'") ? nil : UInt8(ascii: "\\")
            let end = s.quotedEnd(from: s.position, escape: escape, multiline: true)
            s.emit(upTo: end, as: isKey(at: end, s, inFlow: state.flowDepth > 0) ? .property : .string)
        } else if Self.flowIndicators.contains(byte) {
            let opens = byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{")
            state.flowDepth = opens ? state.flowDepth + 1 : max(0, state.flowDepth - 1)
            s.emitCharacter()
        } else {
            lexPlainScalar(&s, inFlow: state.flowDepth > 0)
        }
    }

    /// Whether `|` or `>` at the position opens a block scalar: only indicators (`-`, `+`, a digit), blanks and a
    /// comment follow on the line.
    private func opensBlockScalar(_ s: SourceScanner) -> Bool {
        var i = s.position + 1
        while s.byte(at: i) == UInt8(ascii: "-") || s.byte(at: i) == UInt8(ascii: "+") || s.byte(at: i).isDigit {
            i += 1
        }
        let rest = s.blankEnd(from: i)
        return rest >= s.end || s.bytes[rest] == UInt8(ascii: "\n") || s.bytes[rest] == UInt8(ascii: "\r")
            || (rest > i && s.bytes[rest] == UInt8(ascii: "#"))
    }

    /// Whether a `:` that ends a key is at `index`: followed by whitespace, the end or, in a flow collection, an
    /// indicator.
    private func isKey(at index: Int, _ s: SourceScanner, inFlow: Bool) -> Bool {
        let next = s.byte(at: index + 1)
        return s.byte(at: index) == UInt8(ascii: ":")
            && (next.isWhitespace || index + 1 >= s.end || (inFlow && Self.flowIndicators.contains(next)))
    }

    /// Lexes the plain scalar at the position, up to a key's `:`, a comment, the line's end or (in a flow collection)
    /// an indicator: a key, a number, a literal or unclassed text.
    private func lexPlainScalar(_ s: inout SourceScanner, inFlow: Bool) {
        var end = s.position + 1
        while end < s.end, s.bytes[end] != UInt8(ascii: "\n"), !isKey(at: end, s, inFlow: inFlow),
            !(s.bytes[end] == UInt8(ascii: "#") && s.bytes[end - 1].isBlank),
            !(inFlow && Self.flowIndicators.contains(s.bytes[end]))
        {
            end += 1
        }
        if isKey(at: end, s, inFlow: inFlow) {
            s.emit(upTo: end, as: .property)
            return
        }
        while s.bytes[end - 1].isWhitespace { end -= 1 }
        s.emit(upTo: end, as: kind(ofScalarFrom: s.position, to: end, s))
    }

    /// The class of the plain scalar `bytes[start..<end]`: a number, a literal (`true`, `null`, `~`), or nil.
    private func kind(ofScalarFrom start: Int, to end: Int, _ s: SourceScanner) -> TokenClass? {
        let text = s.bytes[start..<end]
        if text.elementsEqual("~".utf8) || WordKey(text, folding: true).map(Self.literals.contains) == true {
            return .literal
        }
        let sign = text.first == UInt8(ascii: "-") || text.first == UInt8(ascii: "+") ? 1 : 0
        let digits = start + sign
        let isNumber =
            s.byte(at: digits).isDigit || (s.byte(at: digits) == UInt8(ascii: ".") && s.byte(at: digits + 1).isDigit)
        return isNumber && s.numberEnd(from: digits) == end ? .number : nil
    }
}
