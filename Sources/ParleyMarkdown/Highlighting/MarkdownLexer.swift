/// Highlights Markdown's blocks line by line: ATX headings and setext underlines (section), fenced code (fences as
/// meta; the code in its own language when the info string names a known one, else as a string), thematic breaks and
/// quote, list and task markers (meta), then each line's inline text.
struct MarkdownLexer {
    /// How deeply this Markdown is embedded (a fence in Markdown may hold Markdown).
    let depth: Int

    private static let ruleBytes = Array("-*_=".utf8)
    private static let bulletBytes = Array("-*+".utf8)

    /// Lexes to the end.
    func lex(_ s: inout SourceScanner) {
        while !s.isAtEnd {
            let lineEnd = s.lineEnd(from: s.position)
            let textStart = s.blankEnd(from: s.position)
            let indented = textStart - s.position >= 4
            s.emit(upTo: textStart, as: nil)
            if !indented, let (fenceByte, fenceLength) = fence(at: textStart, s),
                fenceByte == UInt8(ascii: "~")
                    || !s.bytes[textStart..<lineEnd].dropFirst(fenceLength).contains(fenceByte)
            {
                lexFencedCode(&s, fenceByte: fenceByte, fenceLength: fenceLength, lineEnd: lineEnd)
                continue
            }
            if !indented, isHeading(s) {
                s.emit(upTo: lineEnd, as: .section)
            } else if !indented, let rule = ruleByte(from: textStart, to: lineEnd, s) {
                s.emit(upTo: lineEnd, as: rule == UInt8(ascii: "=") ? .section : .meta)
            } else {
                if !indented { lexContainerMarkers(&s) }
                s.within(lineEnd) { MarkdownInlineLexer().lex(&$0) }
            }
            s.emitCharacter()
        }
    }

    /// The byte and length of the code fence (three or more backticks or tildes) at `index`, or nil.
    private func fence(at index: Int, _ s: SourceScanner) -> (byte: UInt8, length: Int)? {
        let byte = s.byte(at: index)
        guard byte == UInt8(ascii: "`") || byte == UInt8(ascii: "~") else { return nil }
        var end = index
        while s.byte(at: end) == byte { end += 1 }
        return end - index >= 3 ? (byte, end - index) : nil
    }

    /// Lexes a fenced code block from its opening line (the position at the fence) through its closing fence, or the
    /// end if it has none.
    private func lexFencedCode(_ s: inout SourceScanner, fenceByte: UInt8, fenceLength: Int, lineEnd: Int) {
        let infoStart = s.blankEnd(from: s.position + fenceLength)
        var infoEnd = infoStart
        while infoEnd < lineEnd, !s.bytes[infoEnd].isWhitespace { infoEnd += 1 }
        let language = String(decoding: s.bytes[infoStart..<infoEnd], as: UTF8.self)
        s.emit(upTo: lineEnd, as: .meta)
        s.emitCharacter()
        var closingLine = s.position
        while closingLine < s.end, !isClosingFence(at: closingLine, fenceByte, fenceLength, s) {
            closingLine = s.lineEnd(from: closingLine) + 1
        }
        if let grammar = LanguageNames.grammar(named: language), depth < Grammar.maximumDepth {
            s.within(closingLine) { grammar.lex(&$0, depth: depth + 1) }
        } else {
            s.emit(upTo: closingLine, as: .string)
        }
        s.emit(upTo: s.blankEnd(from: s.position), as: nil)
        s.emit(upTo: s.lineEnd(from: s.position), as: .meta)
        s.emitCharacter()
    }

    /// Whether the line at `index` closes a fence: up to three blanks, at least `length` fence bytes, then blanks.
    private func isClosingFence(at index: Int, _ fenceByte: UInt8, _ length: Int, _ s: SourceScanner) -> Bool {
        let start = s.blankEnd(from: index)
        guard start - index < 4, let (byte, found) = fence(at: start, s), byte == fenceByte, found >= length else {
            return false
        }
        let rest = s.blankEnd(from: start + found)
        return rest >= s.end || s.bytes[rest] == UInt8(ascii: "\n") || s.bytes[rest] == UInt8(ascii: "\r")
    }

    /// Whether an ATX heading starts at the position: one to six `#` and a blank or the line's end.
    private func isHeading(_ s: SourceScanner) -> Bool {
        var i = s.position
        while s.byte(at: i) == UInt8(ascii: "#") { i += 1 }
        let count = i - s.position
        return count >= 1 && count <= 6 && (s.byte(at: i).isWhitespace || i >= s.end)
    }

    /// The byte of the thematic break (`---`, `***`, `___`, blanks allowed) or setext underline (`===`) filling
    /// `bytes[start..<end]`, or nil.
    private func ruleByte(from start: Int, to end: Int, _ s: SourceScanner) -> UInt8? {
        let byte = s.byte(at: start)
        guard Self.ruleBytes.contains(byte) else { return nil }
        let text = s.bytes[start..<end].filter { !$0.isWhitespace }
        let needed = byte == UInt8(ascii: "=") ? 1 : 3
        return text.count >= needed && text.allSatisfy({ $0 == byte }) ? byte : nil
    }

    /// Lexes the block quote markers (`>`), list markers (`-`, `*`, `+`, `1.`, `1)`) and task boxes (`[ ]`, `[x]`)
    /// at the position as meta.
    private func lexContainerMarkers(_ s: inout SourceScanner) {
        while !s.isAtEnd {
            let byte = s.current
            var end = s.position
            if byte == UInt8(ascii: ">") {
                end += 1
            } else if Self.bulletBytes.contains(byte), s.peek().isBlank {
                end += 1
            } else if byte.isDigit {
                while s.byte(at: end).isDigit, end - s.position < 9 { end += 1 }
                let delimiter = s.byte(at: end)
                guard delimiter == UInt8(ascii: ".") || delimiter == UInt8(ascii: ")"), s.byte(at: end + 1).isBlank
                else {
                    return
                }
                end += 1
            } else if byte == UInt8(ascii: "["), "xX ".utf8.contains(s.peek()), s.peek(2) == UInt8(ascii: "]"),
                s.peek(3).isBlank
            {
                end += 3
            } else {
                return
            }
            s.emit(upTo: end, as: .meta)
            s.emit(upTo: s.blankEnd(from: s.position), as: nil)
        }
    }
}
