/// Highlights Markdown's inline text within one line: code spans (string), emphasis and strikethrough markers (meta),
/// link destinations (string); a backslash escape is left as it is.
struct MarkdownInlineLexer {
    private static let emphasisBytes = Array("*_~".utf8)

    /// Lexes to the end (the line's).
    func lex(_ s: inout SourceScanner) {
        let codeSpanClosers = codeSpanClosers(s)
        let lastParenthesis = s.bytes[s.position..<s.end].lastIndex(of: UInt8(ascii: ")")) ?? s.position
        while !s.isAtEnd {
            let byte = s.current
            if byte == UInt8(ascii: "\\"), s.peek() < 0x80, s.peek() > 0x20 {
                s.emit(upTo: s.position + 2, as: nil)
            } else if byte == UInt8(ascii: "`") {
                let runEnd = runEnd(from: s.position, s)
                let closer = codeSpanClosers[s.position]
                s.emit(upTo: closer.map { $0 + runEnd - s.position } ?? runEnd, as: closer == nil ? nil : .string)
            } else if Self.emphasisBytes.contains(byte) {
                let runEnd = runEnd(from: s.position, s)
                s.emit(upTo: runEnd, as: isEmphasisMarker(upTo: runEnd, s) ? .meta : nil)
            } else if byte == UInt8(ascii: "]"), s.peek() == UInt8(ascii: "("), lastParenthesis > s.position + 1 {
                s.emit(upTo: s.position + 2, as: nil)
                s.emit(upTo: s.bytes[s.position...].firstIndex(of: UInt8(ascii: ")")) ?? s.end, as: .string)
            } else {
                s.emitCharacter()
            }
        }
    }

    /// The end of the run of the byte at `index` (three backticks, a double tilde).
    private func runEnd(from index: Int, _ s: SourceScanner) -> Int {
        var end = index
        while end < s.end, s.bytes[end] == s.bytes[index] { end += 1 }
        return end
    }

    /// For each backtick run in the line, the start of the next run of the same length, which closes the code span
    /// it opens (one pass, so the line is read in linear time).
    private func codeSpanClosers(_ s: SourceScanner) -> [Int: Int] {
        var runs: [(start: Int, length: Int)] = []
        var i = s.position
        while i < s.end {
            let end = runEnd(from: i, s)
            if s.bytes[i] == UInt8(ascii: "`") { runs.append((i, end - i)) }
            i = end
        }
        var closers: [Int: Int] = [:]
        var nextRunOfLength: [Int: Int] = [:]
        for run in runs.reversed() {
            closers[run.start] = nextRunOfLength[run.length]
            nextRunOfLength[run.length] = run.start
        }
        return closers
    }

    /// Whether the run from the position to `end` delimits emphasis or strikethrough: it touches text on at least one
    /// side, `_` not inside a word, `~` at most two long.
    private func isEmphasisMarker(upTo end: Int, _ s: SourceScanner) -> Bool {
        let before = s.position > 0 ? s.bytes[s.position - 1] : UInt8(ascii: " ")
        let after = s.byte(at: end)
        let touchesText = !before.isWhitespace || (end < s.end && !after.isWhitespace)
        switch s.current {
        case UInt8(ascii: "_"): return touchesText && !(before.isAlphanumeric && after.isAlphanumeric)
        case UInt8(ascii: "~"): return touchesText && end - s.position <= 2
        default: return touchesText
        }
    }
}
