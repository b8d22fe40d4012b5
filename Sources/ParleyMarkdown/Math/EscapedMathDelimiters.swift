/// `\(`, `\)`, `\[` and `\]` delimit math, but cmark-gfm resolves backslash escapes before an extension sees them. So
/// they are swapped for private-use markers before parsing (a pure, line-local rewrite, so a text and any run of its
/// lines get the same markers), and whatever did not become math gets them back: as the bare bracket where cmark
/// would have resolved the escape, as the two characters in code. The markers are U+10FFF8 to U+10FFFB; one already in
/// the text reads as the escape it stands for.
enum EscapedMathDelimiters {
    /// The bracket each marker stands for, in marker order.
    static let brackets: [UInt8] = Array("()[]".utf8)
    /// The bytes every marker starts with (U+10FFF8 to U+10FFFB share them); the last byte is `0xB8 + index`.
    static let markerPrefix: [UInt8] = [0xF4, 0x8F, 0xBF]
    static let markerLength = 4

    /// Which escaped bracket, by index into `brackets`.
    enum Delimiter: Int {
        case openInline, closeInline, openDisplay, closeDisplay
    }

    /// `source` with each escaped bracket (a backslash not itself escaped, then a bracket) replaced by its marker; nil
    /// when there is none.
    static func marking(_ source: [UInt8]) -> [UInt8]? {
        guard source.contains(UInt8(ascii: "\\")) else { return nil }
        var marked: [UInt8] = []
        var index = 0
        var changed = false
        marked.reserveCapacity(source.count + 8)
        while index < source.count {
            let byte = source[index]
            guard byte == UInt8(ascii: "\\"), index + 1 < source.count else {
                marked.append(byte)
                index += 1
                continue
            }
            if let bracket = brackets.firstIndex(of: source[index + 1]) {
                marked += markerPrefix + [0xB8 + UInt8(bracket)]
                changed = true
            } else {
                marked += source[index...(index + 1)]
            }
            index += 2
        }
        return changed ? marked : nil
    }

    /// The delimiter whose marker starts at `index` in `bytes`, if one does.
    static func delimiter(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Delimiter? {
        guard index + markerLength <= bytes.count, bytes[index] == markerPrefix[0], bytes[index + 1] == markerPrefix[1],
            bytes[index + 2] == markerPrefix[2]
        else { return nil }
        return Delimiter(rawValue: Int(bytes[index + 3]) - 0xB8)
    }

    /// `text` with every marker turned back into its bracket, preceded by a backslash when `keepingBackslash`.
    static func restoring(_ text: UnsafeBufferPointer<UInt8>, keepingBackslash: Bool) -> [UInt8] {
        var restored: [UInt8] = []
        restored.reserveCapacity(text.count)
        var index = 0
        while index < text.count {
            if let delimiter = delimiter(in: text, at: index) {
                if keepingBackslash { restored.append(UInt8(ascii: "\\")) }
                restored.append(brackets[delimiter.rawValue])
                index += markerLength
            } else {
                restored.append(text[index])
                index += 1
            }
        }
        return restored
    }

    /// Whether `text` holds a marker.
    static func isMarked(_ text: UnsafePointer<CChar>) -> Bool {
        var pointer = UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self)
        while pointer.pointee != 0 {
            if pointer.pointee == markerPrefix[0], pointer[1] == markerPrefix[1], pointer[2] == markerPrefix[2] {
                return true
            }
            pointer += 1
        }
        return false
    }
}
