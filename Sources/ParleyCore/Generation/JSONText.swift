/// Builds small JSON texts by hand, for the hot path where a general encoder costs too much.
public struct JSONText: Sendable {
    private var text = "{"
    private var isEmpty = true

    /// Starts an empty object.
    public init() {}

    /// An object whose fields `build` adds.
    public init(_ build: (inout JSONText) -> Void) {
        build(&self)
    }

    /// Adds a string field.
    public mutating func field(_ name: String, _ value: String) {
        key(name)
        JSONText.appendQuoted(value, to: &text)
    }

    /// Adds an integer field.
    public mutating func field(_ name: String, _ value: Int64) {
        key(name)
        text += String(value)
    }

    /// Adds an integer field.
    public mutating func field(_ name: String, _ value: Int) {
        field(name, Int64(value))
    }

    /// Adds a number field.
    public mutating func field(_ name: String, _ value: Double) {
        key(name)
        text += value.isFinite ? "\(value)" : "0"
    }

    /// Adds a boolean field.
    public mutating func field(_ name: String, _ value: Bool) {
        key(name)
        text += value ? "true" : "false"
    }

    /// Adds a nested object field.
    public mutating func field(_ name: String, object: JSONText) {
        key(name)
        append(object)
    }

    /// Adds a field holding an array of objects.
    public mutating func field(_ name: String, objects: [JSONText]) {
        key(name)
        text += "["
        for (index, object) in objects.enumerated() {
            if index > 0 { text += "," }
            append(object)
        }
        text += "]"
    }

    /// The finished object.
    public var result: String { text + "}" }

    /// The object's members, without its braces (empty when it has none).
    public var members: Substring { text.dropFirst() }

    /// Appends a finished object, without copying it into a `result` first.
    private mutating func append(_ object: JSONText) {
        text += object.text
        text += "}"
    }

    private mutating func key(_ name: String) {
        if !isEmpty { text += "," }
        isEmpty = false
        JSONText.appendQuoted(name, to: &text)
        text += ":"
    }

    /// `value` as a quoted JSON string literal.
    public static func quoted(_ value: String) -> String {
        var out = ""
        out.reserveCapacity(value.utf8.count + 2)
        appendQuoted(value, to: &out)
        return out
    }

    /// Appends `value` as a quoted JSON string, escaping what JSON requires and U+2028/U+2029 (our JSON is never
    /// embedded in HTML, so `<`, `>` and `&` stay as they are: HTML in events costs a third less).
    public static func appendQuoted(_ value: String, to out: inout String) {
        // Scans UTF-8 bytes and copies the runs between escapes whole: every escaped character starts a scalar (an
        // ASCII byte, or the E2 lead byte of U+2028/U+2029), so each run boundary is a valid string index.
        out += "\""
        let bytes = value.utf8
        var runStart = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            var length = 1
            let escape: String?
            switch byte {
            case UInt8(ascii: "\""): escape = "\\\""
            case UInt8(ascii: "\\"): escape = "\\\\"
            case UInt8(ascii: "\n"): escape = "\\n"
            case UInt8(ascii: "\r"): escape = "\\r"
            case UInt8(ascii: "\t"): escape = "\\t"
            case 0..<0x20: escape = "\\u" + hex4(UInt32(byte))
            case 0xE2:
                let next = bytes.index(after: index)
                let last = next < bytes.endIndex ? bytes.index(after: next) : next
                if last < bytes.endIndex, bytes[next] == 0x80, bytes[last] == 0xA8 || bytes[last] == 0xA9 {
                    escape = bytes[last] == 0xA8 ? "\\u2028" : "\\u2029"
                    length = 3
                } else {
                    escape = nil
                }
            default: escape = nil
            }
            if let escape {
                out += value[runStart..<index]
                out += escape
                index = bytes.index(index, offsetBy: length)
                runStart = index
            } else {
                index = bytes.index(after: index)
            }
        }
        out += value[runStart..<bytes.endIndex]
        out += "\""
    }

    private static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}
