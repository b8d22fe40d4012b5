/// Builds small JSON texts by hand, for the hot path where a general encoder costs too much.
public struct JSONText: Sendable {
    private var text = "{"
    private var isEmpty = true

    /// Starts an empty object.
    public init() {}

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
        text += object.result
    }

    /// The finished object.
    public var result: String { text + "}" }

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
        out += "\""
        var pending = value.unicodeScalars.startIndex
        let scalars = value.unicodeScalars
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            let escape: String? = switch scalar {
            case "\"": "\\\""
            case "\\": "\\\\"
            case "\n": "\\n"
            case "\r": "\\r"
            case "\t": "\\t"
            case "\u{2028}": "\\u2028"
            case "\u{2029}": "\\u2029"
            default: scalar.value < 0x20 ? "\\u" + hex4(scalar.value) : nil
            }
            if let escape {
                out.unicodeScalars.append(contentsOf: scalars[pending..<index])
                out += escape
                pending = scalars.index(after: index)
            }
            index = scalars.index(after: index)
        }
        out.unicodeScalars.append(contentsOf: scalars[pending..<scalars.endIndex])
        out += "\""
    }

    private static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}
