/// A forward-only reader over the UTF-8 bytes of one JSON text, where the text lies: it validates as it goes, reads
/// the values a caller asks for and skips the rest, without building a document or a string per key (the hot path of
/// every streamed chunk). Its methods are inlinable so that readers in other modules (the providers' chunk reader, the
/// mock upstream's request reader) run as fast as in this one.
public struct JSONCursor {
    /// The text is not JSON, or a value is not of the type asked for.
    public struct Invalid: Error {
        @inlinable public init() {}
    }

    /// The kinds of JSON value, as the next one's first byte tells.
    public enum ValueKind: Equatable, Sendable {
        case object, array, string, number, bool, null
    }

    /// The text's bytes, valid only inside `readDocument`, which the cursor cannot leave.
    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
    @usableFromInline var index = 0
    /// The objects and arrays open around the cursor.
    @usableFromInline var depth = 0

    /// The deepest nesting read (as Foundation's decoder allows): a hostile text of a million brackets is refused
    /// instead of overflowing the stack of the recursive reads.
    @inlinable public static var maximumDepth: Int { 512 }

    @inlinable init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Reads the whole of `text` as one value with `read`, then expects nothing but whitespace.
    @inlinable public static func readDocument<T>(_ text: String, _ read: (inout JSONCursor) throws -> T) throws -> T {
        var text = text
        return try text.withUTF8 { bytes in
            var cursor = JSONCursor(bytes)
            let value = try read(&cursor)
            cursor.skipWhitespace()
            guard cursor.index == bytes.count else { throw Invalid() }
            return value
        }
    }

    /// Whether the next value is `null` (consumed if so).
    @inlinable public mutating func readNull() throws -> Bool {
        skipWhitespace()
        guard peek == UInt8(ascii: "n") else { return false }
        try expectLiteral("null")
        return true
    }

    /// The kind of the next value, from its first byte (nothing is consumed); throws at the end of the text or at a
    /// byte no value starts with.
    @inlinable public mutating func nextValueKind() throws -> ValueKind {
        skipWhitespace()
        guard let byte = peek else { throw Invalid() }
        switch byte {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        default: throw Invalid()
        }
    }

    /// Reads `true` or `false`.
    @inlinable public mutating func readBool() throws -> Bool {
        skipWhitespace()
        if peek == UInt8(ascii: "t") {
            try expectLiteral("true")
            return true
        }
        try expectLiteral("false")
        return false
    }

    /// Reads an object, calling `field` with each key; `field` must read or skip that key's value.
    @inlinable public mutating func readObject(_ field: (inout JSONCursor, Key) throws -> Void) throws {
        try expect(UInt8(ascii: "{"))
        try enterContainer()
        defer { depth -= 1 }
        skipWhitespace()
        if peek == UInt8(ascii: "}") { index += 1; return }
        while true {
            let key = try readKey()
            try expect(UInt8(ascii: ":"))
            try field(&self, key)
            if try closes(with: UInt8(ascii: "}")) { return }
        }
    }

    /// Reads an array, calling `element` with each index; `element` must read or skip that element.
    @inlinable public mutating func readArray(_ element: (inout JSONCursor, Int) throws -> Void) throws {
        try expect(UInt8(ascii: "["))
        try enterContainer()
        defer { depth -= 1 }
        skipWhitespace()
        if peek == UInt8(ascii: "]") { index += 1; return }
        var position = 0
        while true {
            try element(&self, position)
            position += 1
            if try closes(with: UInt8(ascii: "]")) { return }
        }
    }

    /// After a member or element: whether `closing` ends its object or array (consumed), or else a comma (consumed)
    /// comes before the next one.
    @inlinable mutating func closes(with closing: UInt8) throws -> Bool {
        skipWhitespace()
        guard let next = take() else { throw Invalid() }
        if next == closing { return true }
        guard next == UInt8(ascii: ",") else { throw Invalid() }
        return false
    }

    /// Counts one more open object or array, refusing one past `maximumDepth`.
    @inlinable mutating func enterContainer() throws {
        guard depth < Self.maximumDepth else { throw Invalid() }
        depth += 1
    }

    /// Reads an object's key where it lies; only a key with escapes is built as a string.
    @inlinable mutating func readKey() throws -> Key {
        try expect(UInt8(ascii: "\""))
        let start = index
        guard try skipStringBody() else { return .raw(UnsafeBufferPointer(rebasing: bytes[start..<(index - 1)])) }
        index = start - 1
        return .unescaped(try readString())
    }

    /// Reads a string, resolving escapes (surrogate pairs included).
    @inlinable public mutating func readString() throws -> String {
        try expect(UInt8(ascii: "\""))
        let start = index
        guard try skipStringBody() else { return String(decoding: bytes[start..<(index - 1)], as: UTF8.self) }
        // The string has escapes: read it again, resolving them.
        index = start
        var scalars = String.UnicodeScalarView()
        var runStart = index
        while true {
            guard let byte = take() else { throw Invalid() }
            switch byte {
            case UInt8(ascii: "\""):
                return String(scalars) + String(decoding: bytes[runStart..<(index - 1)], as: UTF8.self)
            case UInt8(ascii: "\\"):
                scalars.append(
                    contentsOf: String(decoding: bytes[runStart..<(index - 1)], as: UTF8.self).unicodeScalars)
                scalars.append(try readEscape())
                runStart = index
            default:
                continue
            }
        }
    }

    /// Moves past the rest of a string whose opening quote was just read, checking its escapes and that it has no
    /// control characters, without building it; returns whether it had escapes.
    @inlinable mutating func skipStringBody() throws -> Bool {
        var hasEscapes = false
        while true {
            guard let byte = take() else { throw Invalid() }
            switch byte {
            case UInt8(ascii: "\""): return hasEscapes
            case UInt8(ascii: "\\"):
                _ = try readEscape()
                hasEscapes = true
            case 0..<0x20: throw Invalid()
            default: continue
            }
        }
    }

    /// Reads a number that must be a whole number fitting an `Int`.
    @inlinable public mutating func readInt() throws -> Int {
        skipWhitespace()
        let start = index
        while let byte = peek,
            byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        {
            index += 1
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if let whole = Int(text) { return whole }
        guard let number = Double(text), number.rounded() == number, let whole = Int(exactly: number) else {
            throw Invalid()
        }
        return whole
    }

    /// Skips any one value, checking that it is well formed.
    @inlinable public mutating func skipValue() throws {
        skipWhitespace()
        switch peek {
        case UInt8(ascii: "{"): try readObject { cursor, _ in try cursor.skipValue() }
        case UInt8(ascii: "["): try readArray { cursor, _ in try cursor.skipValue() }
        case UInt8(ascii: "\""):
            index += 1
            _ = try skipStringBody()
        case UInt8(ascii: "t"): try expectLiteral("true")
        case UInt8(ascii: "f"): try expectLiteral("false")
        case UInt8(ascii: "n"): try expectLiteral("null")
        default: try skipNumber()
        }
    }

    /// Moves past a number, checking it against JSON's grammar: `-`, whole part, optional fraction, optional exponent.
    @inlinable mutating func skipNumber() throws {
        if peek == UInt8(ascii: "-") { index += 1 }
        if peek == UInt8(ascii: "0") {
            index += 1
        } else {
            try skipDigits()
        }
        if peek == UInt8(ascii: ".") {
            index += 1
            try skipDigits()
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            try skipDigits()
        }
    }

    /// Moves past one or more decimal digits.
    @inlinable mutating func skipDigits() throws {
        let start = index
        while let byte = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
        guard index > start else { throw Invalid() }
    }

    @inlinable var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    @inlinable mutating func take() -> UInt8? {
        defer { index += 1 }
        return peek
    }

    @inlinable mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    @inlinable mutating func expect(_ byte: UInt8) throws {
        skipWhitespace()
        guard take() == byte else { throw Invalid() }
    }

    @inlinable mutating func expectLiteral(_ literal: String) throws {
        for byte in literal.utf8 { guard take() == byte else { throw Invalid() } }
    }

    /// The character of an escape whose backslash was just read.
    @inlinable mutating func readEscape() throws -> Unicode.Scalar {
        switch take() {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try readHex4()
            guard (0xD800..<0xDC00).contains(unit) else { return Unicode.Scalar(unit) ?? "\u{FFFD}" }
            guard take() == UInt8(ascii: "\\"), take() == UInt8(ascii: "u") else { throw Invalid() }
            let low = try readHex4()
            guard (0xDC00..<0xE000).contains(low) else { throw Invalid() }
            return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)) ?? "\u{FFFD}"
        default: throw Invalid()
        }
    }

    @inlinable mutating func readHex4() throws -> UInt32 {
        guard index + 4 <= bytes.count,
            bytes[index..<(index + 4)].allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }),
            let value = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16)
        else { throw Invalid() }
        index += 4
        return value
    }
}

extension JSONCursor {
    /// An object's key, matched against names (`case "content":`) without building a string unless it has escapes.
    public enum Key {
        /// The key's bytes between its quotes, as they lie in the text: a key without escapes.
        case raw(UnsafeBufferPointer<UInt8>)
        /// A key with escapes, resolved.
        case unescaped(String)

        /// Whether the key is `name`.
        @inlinable public static func ~= (name: StaticString, key: Key) -> Bool {
            name.withUTF8Buffer { expected in
                switch key {
                case .raw(let bytes): bytes.count == expected.count && bytes.elementsEqual(expected)
                case .unescaped(let text): text.utf8.elementsEqual(expected)
                }
            }
        }
    }
}
