/// A formula found in a paragraph's text: `$…$` or `\(…\)` inline, `$$…$$` or `\[…\]` displayed. The text between the
/// delimiters is taken as it is (markdown never sees it), so `_` and `*` in a formula stay literal.
///
/// `$` opens only before a character that is not a space, and the next `$` closes only after one, when no digit
/// follows (else there is no formula), so "costs $5 and $10" stays prose. A backslash takes the next character with it while a closer is sought, and `\$`
/// never opens (cmark resolves that escape first). Code spans are cmark's before any `$` is seen.
struct MathSpan: Equatable {
    /// The formula's TeX source, with escaped brackets restored.
    let source: String
    let isDisplay: Bool
    /// The subject offset just after the closing delimiter.
    let end: Int

    /// The kinds of closer a formula waits for.
    enum Closer: Int, CaseIterable {
        case dollar, doubleDollar, inlineBracket, displayBracket
    }

    /// The formula opening at `offset` in `subject`, if a closer follows; `closers` remembers earlier searches.
    static func find(in subject: UnsafeBufferPointer<UInt8>, at offset: Int, closers: inout CloserSearch) -> MathSpan? {
        let dollar = UInt8(ascii: "$")
        let opener: (closer: Closer, length: Int)
        if subject[offset] == dollar {
            let isDouble = offset + 1 < subject.count && subject[offset + 1] == dollar
            opener = isDouble ? (.doubleDollar, 2) : (.dollar, 1)
        } else {
            switch EscapedMathDelimiters.delimiter(in: subject, at: offset) {
            case .openInline: opener = (.inlineBracket, EscapedMathDelimiters.markerLength)
            case .openDisplay: opener = (.displayBracket, EscapedMathDelimiters.markerLength)
            default: return nil
            }
        }
        let start = offset + opener.length
        if opener.closer == .dollar, start >= subject.count || isSpace(subject[start]) { return nil }
        guard let close = closers.first(opener.closer, from: start, in: subject),
            opener.closer != .dollar || isClosingDollar(at: close.lowerBound, in: subject)
        else { return nil }
        let content = UnsafeBufferPointer(rebasing: subject[start..<close.lowerBound])
        guard content.contains(where: { !isSpace($0) }) else { return nil }
        return MathSpan(
            source: String(decoding: EscapedMathDelimiters.restoring(content, keepingBackslash: true), as: UTF8.self),
            isDisplay: opener.closer == .doubleDollar || opener.closer == .displayBracket, end: close.upperBound)
    }

    /// The formula's source behind its marker, the literal of the code span that carries it through cmark (which
    /// escapes it); `FormulaHTML` turns that span into the formula's `<code class="math …">`.
    var markedSource: String {
        String(isDisplay ? FormulaHTML.displayMarker : FormulaHTML.inlineMarker) + source
    }

    /// Where each kind of closer was last sought in one subject, so a paragraph of openers without closers is read once
    /// per kind rather than once per opener (the first closer after a point does not depend on the opener before it).
    struct CloserSearch {
        private var searches: [(from: Int, found: Range<Int>?)?] = Array(repeating: nil, count: Closer.allCases.count)

        /// Creates a search that remembers nothing yet.
        init() {}

        /// The first `closer` at or after `from`.
        mutating func first(_ closer: Closer, from: Int, in subject: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
            if let search = searches[closer.rawValue], search.from <= from,
                search.found.map({ $0.lowerBound >= from }) ?? true
            {
                return search.found
            }
            let found = Self.scan(for: closer, from: from, in: subject)
            searches[closer.rawValue] = (from, found)
            return found
        }

        /// Reads `subject` from `from` for the first `closer`, stepping over backslash pairs.
        private static func scan(for closer: Closer, from: Int, in subject: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
            let dollar = UInt8(ascii: "$"), backslash = UInt8(ascii: "\\")
            var index = from
            while index < subject.count {
                let byte = subject[index]
                if byte == backslash {
                    index += 2
                    continue
                }
                switch closer {
                case .dollar where byte == dollar:
                    return index..<(index + 1)
                case .doubleDollar where byte == dollar:
                    if index + 1 < subject.count, subject[index + 1] == dollar { return index..<(index + 2) }
                case .inlineBracket, .displayBracket:
                    let wanted: EscapedMathDelimiters.Delimiter =
                        closer == .inlineBracket ? .closeInline : .closeDisplay
                    if EscapedMathDelimiters.delimiter(in: subject, at: index) == wanted {
                        return index..<(index + EscapedMathDelimiters.markerLength)
                    }
                default:
                    break
                }
                index += 1
            }
            return nil
        }
    }

    /// Whether the `$` at `index` may close a formula: it follows a character that is not a space, and no digit
    /// follows it.
    private static func isClosingDollar(at index: Int, in subject: UnsafeBufferPointer<UInt8>) -> Bool {
        let after = index + 1 < subject.count ? subject[index + 1] : 0
        return !isSpace(subject[index - 1]) && !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(after)
    }

    /// Space, tab or a line ending.
    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
            || byte == UInt8(ascii: "\r")
    }
}
