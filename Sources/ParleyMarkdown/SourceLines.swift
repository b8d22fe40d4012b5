/// The lines of a UTF-8 markdown buffer, counted as cmark-gfm counts them (LF, CR LF and a lone CR end a line).
struct SourceLines {
    /// cmark skips a byte-order mark at the start of a document (and then misses a task list item on line 1).
    static let byteOrderMark = Array("\u{FEFF}".utf8)

    /// The buffer.
    let bytes: [UInt8]
    /// Byte offset where each line starts: line n (1-based) starts at `starts[n - 1]`; the last entry is where the
    /// incomplete last line starts (possibly `bytes.count`).
    private let starts: [Int]

    /// Indexes the lines of `bytes`. A CR at the very end does not end its line yet: an LF may still follow.
    init(_ bytes: [UInt8]) {
        var starts = [0]
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\n"):
                starts.append(index + 1)
            case UInt8(ascii: "\r") where index + 1 < bytes.count:
                if bytes[index + 1] == UInt8(ascii: "\n") { index += 1 }
                starts.append(index + 1)
            default:
                break
            }
            index += 1
        }
        self.bytes = bytes
        self.starts = starts
    }

    /// The number of complete (terminated) lines.
    var completeCount: Int { starts.count - 1 }

    /// Byte offset where `line` starts; `completeCount + 1` is the incomplete last line.
    func offset(ofLine line: Int) -> Int { starts[line - 1] }

    /// The bytes of the complete lines `lines`, line endings included.
    func bytes(ofLines lines: ClosedRange<Int>) -> ArraySlice<UInt8> {
        bytes[offset(ofLine: lines.lowerBound)..<offset(ofLine: lines.upperBound + 1)]
    }

    /// Whether `line` (complete or the incomplete last one) might begin a link reference definition, possibly inside
    /// block quotes or list items: after a byte-order mark, container markers and indentation comes `[`, and the
    /// label closes with `]:` on this line or not at all (it may continue on the next). Errs on the side of yes.
    func mayBeginDefinition(_ line: Int) -> Bool {
        var rest = bytes[offset(ofLine: line)..<(line <= completeCount ? offset(ofLine: line + 1) : bytes.count)]
        if rest.starts(with: Self.byteOrderMark) { rest = rest.dropFirst(Self.byteOrderMark.count) }
        rest = rest.drop { byte in
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: ">"), UInt8(ascii: "-"), UInt8(ascii: "+"),
                UInt8(ascii: "*"), UInt8(ascii: "."), UInt8(ascii: ")"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                false
            }
        }
        guard rest.first == UInt8(ascii: "[") else { return false }
        let bracket = UInt8(ascii: "]"), colon = UInt8(ascii: ":")
        return !rest.contains(bracket) || zip(rest, rest.dropFirst()).contains { $0 == bracket && $1 == colon }
    }
}
