/// The code's UTF-8 bytes, the read position and the end of the part being lexed, and the HTML written so far: lexers
/// look ahead freely and advance only by writing what they have read.
struct SourceScanner {
    let bytes: [UInt8]
    private(set) var position = 0
    /// The end of the part being lexed: the code's end, or an embedded language's.
    private(set) var end: Int
    private var writer: SpanWriter

    /// A scanner at the start of `bytes`.
    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        end = bytes.count
        writer = SpanWriter(capacity: bytes.count * 2)
    }

    /// Whether the whole part has been written.
    var isAtEnd: Bool { position >= end }

    /// The byte at the position (0 at the end).
    var current: UInt8 { byte(at: position) }

    /// The byte `offset` bytes after the position (0 past the end).
    func peek(_ offset: Int = 1) -> UInt8 { byte(at: position + offset) }

    /// The byte at `index`, or 0 outside the part being lexed (a lookahead never matches past the end).
    func byte(at index: Int) -> UInt8 { index < end && index >= 0 ? bytes[index] : 0 }

    /// Whether `pattern` occurs at `index`, within the part.
    func matches(_ pattern: [UInt8], at index: Int) -> Bool {
        guard index >= 0, index + pattern.count <= end else { return false }
        for offset in pattern.indices where bytes[index + offset] != pattern[offset] { return false }
        return true
    }

    /// Whether `pattern` occurs at the position.
    func matches(_ pattern: [UInt8]) -> Bool { matches(pattern, at: position) }

    /// Writes the bytes from the position up to `index` (at most the end) in class `kind`, and moves there.
    mutating func emit(upTo index: Int, as kind: TokenClass?) {
        let stop = min(index, end)
        guard stop > position else { return }
        writer.write(bytes[position..<stop], as: kind)
        position = stop
    }

    /// Writes the character at the position outside any span: one byte, or all bytes of a non-ASCII character.
    mutating func emitCharacter() {
        var next = position + 1
        while next < end, bytes[next] & 0xC0 == 0x80 { next += 1 }
        emit(upTo: next, as: nil)
    }

    /// Lexes up to `limit` (an embedded language, a line) with `body`, then writes what it left unclassed.
    mutating func within(_ limit: Int, _ body: (inout SourceScanner) -> Void) {
        let outerEnd = end
        end = min(limit, outerEnd)
        body(&self)
        emit(upTo: end, as: nil)
        end = outerEnd
    }

    /// Writes the rest unclassed and returns the HTML.
    consuming func finish() -> String {
        emit(upTo: end, as: nil)
        return writer.finish()
    }
}
