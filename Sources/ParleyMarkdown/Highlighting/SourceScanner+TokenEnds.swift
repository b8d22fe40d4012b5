/// Where the tokens every lexer shares end: lines, words, numbers, quoted text, delimited runs.
extension SourceScanner {
    /// The index of the line feed ending the line that holds `index`, or the end.
    func lineEnd(from index: Int) -> Int {
        var i = index
        while i < end, bytes[i] != UInt8(ascii: "\n") { i += 1 }
        return i
    }

    /// The end of the line at `index`, continued past each line break that follows a backslash (and blanks).
    func logicalLineEnd(from index: Int) -> Int {
        var lineStart = index
        var lineEnd = lineEnd(from: index)
        while lineEnd < end {
            var last = lineEnd - 1
            while last >= lineStart, bytes[last].isWhitespace { last -= 1 }
            guard last >= lineStart, bytes[last] == UInt8(ascii: "\\") else { break }
            lineStart = lineEnd + 1
            lineEnd = self.lineEnd(from: lineStart)
        }
        return lineEnd
    }

    /// The end of the run of word bytes (letters, digits, `_`, non-ASCII) at `index`.
    func wordEnd(from index: Int) -> Int {
        var i = index
        while i < end, bytes[i].isWordByte { i += 1 }
        return i
    }

    /// The end of the run of spaces and tabs at `index`.
    func blankEnd(from index: Int) -> Int {
        var i = index
        while i < end, bytes[i].isBlank { i += 1 }
        return i
    }

    /// The end of the number at `index` (a digit, or `.` and a digit): a `0x`/`0o`/`0b` prefix and its digits, or
    /// digits with `_` (or `separator`) and one fraction and exponent; then a suffix of letters (`10u`, `1.5f`, `2px`).
    func numberEnd(from index: Int, separator: UInt8? = nil) -> Int {
        var i = index
        /// Whether `byte` continues the digits: a digit, `_`, or `separator` before a letter or digit.
        func isDigitOrSeparator(_ byte: UInt8) -> Bool {
            byte.isDigit || byte == UInt8(ascii: "_") || (byte == separator && self.byte(at: i + 1).isAlphanumeric)
        }
        if byte(at: i) == UInt8(ascii: "0"),
            [UInt8(ascii: "x"), UInt8(ascii: "o"), UInt8(ascii: "b")].contains(
                byte(at: i + 1).lowercased), byte(at: i + 2).isHexDigit
        {
            i += 2
        } else {
            while isDigitOrSeparator(byte(at: i)) { i += 1 }
            if byte(at: i) == UInt8(ascii: "."), byte(at: i + 1).isDigit {
                i += 1
                while isDigitOrSeparator(byte(at: i)) { i += 1 }
            }
            let sign = byte(at: i + 1) == UInt8(ascii: "+") || byte(at: i + 1) == UInt8(ascii: "-") ? 1 : 0
            if byte(at: i).lowercased == UInt8(ascii: "e"), byte(at: i + 1 + sign).isDigit { i += 1 + sign }
        }
        while byte(at: i).isAlphanumeric || isDigitOrSeparator(byte(at: i)) { i += 1 }
        return i
    }

    /// The end of the text quoted by `bytes[index]`: just after the closing quote, or, unterminated, at the line break
    /// (if not `multiline`) or the end; `escape` makes the byte after it part of the text.
    func quotedEnd(from index: Int, escape: UInt8? = UInt8(ascii: "\\"), multiline: Bool = false) -> Int {
        let quote = bytes[index]
        var i = index + 1
        while i < end {
            let byte = bytes[i]
            if byte == escape {
                i += 2
            } else if byte == quote {
                return i + 1
            } else if byte == UInt8(ascii: "\n"), !multiline {
                return i
            } else {
                i += 1
            }
        }
        return end
    }

    /// The index after the bracket that closes the one at `index` (inner pairs of the same kind counted), or nil if
    /// none does within `maxLength` bytes (and, if `withinLine`, on the same line).
    func bracketEnd(from index: Int, maxLength: Int = .max, withinLine: Bool = false) -> Int? {
        let open = bytes[index]
        guard let close = open.closingBracket else { return nil }
        var depth = 0
        var i = index
        while i < end, i - index < maxLength {
            switch bytes[i] {
            case open: depth += 1
            case close:
                depth -= 1
                if depth == 0 { return i + 1 }
            case UInt8(ascii: "\n") where withinLine: return nil
            default: break
            }
            i += 1
        }
        return nil
    }

    /// The index just after the first `pattern` at or after `index`, or nil.
    func index(after pattern: [UInt8], from index: Int) -> Int? {
        var i = index
        while i + pattern.count <= end {
            if matches(pattern, at: i) { return i + pattern.count }
            i += 1
        }
        return nil
    }

    /// The index of the first `pattern` (lowercase) at or after `index`, ignoring ASCII case, or nil.
    func index(ofCaseInsensitive pattern: [UInt8], from index: Int) -> Int? {
        var i = index
        while i + pattern.count <= end {
            if pattern.indices.allSatisfy({ bytes[i + $0].lowercased == pattern[$0] }) { return i }
            i += 1
        }
        return nil
    }
}
