/// Builds JSON objects by hand, as UTF-8 bytes, for the hot paths where a general encoder costs too much: every event
/// of a reply and every upstream request (a long conversation's whole history). Bytes rather than a `String`: appending
/// to a string checks its storage and flags each time, which made escaping three times slower. Inlinable, so that
/// the modules that frame events and requests with it compile it into their own hot paths.
public struct JSONText: Sendable {
    @usableFromInline var bytes: [UInt8] = [UInt8(ascii: "{")]
    @usableFromInline var isEmpty = true

    /// Starts an empty object.
    @inlinable public init() {}

    /// An object whose fields `build` adds.
    @inlinable public init(_ build: (inout JSONText) -> Void) {
        build(&self)
    }

    /// Adds a string field.
    @inlinable public mutating func field(_ name: String, _ value: String) {
        key(name)
        JSONText.appendQuoted(value, to: &bytes)
    }

    /// Adds an integer field.
    @inlinable public mutating func field(_ name: String, _ value: Int64) {
        key(name)
        JSONText.appendDecimal(value, to: &bytes)
    }

    /// Adds an integer field.
    @inlinable public mutating func field(_ name: String, _ value: Int) {
        field(name, Int64(value))
    }

    /// Adds a number field.
    @inlinable public mutating func field(_ name: String, _ value: Double) {
        key(name)
        JSONText.append(value.isFinite ? "\(value)" : "0", to: &bytes)
    }

    /// Adds a boolean field.
    @inlinable public mutating func field(_ name: String, _ value: Bool) {
        key(name)
        JSONText.append(value ? "true" : "false", to: &bytes)
    }

    /// Adds a field whose value is `null`.
    @inlinable public mutating func field(null name: String) {
        key(name)
        JSONText.append("null", to: &bytes)
    }

    /// Adds a nested object field.
    @inlinable public mutating func field(_ name: String, object: JSONText) {
        key(name)
        append(object)
    }

    /// Adds a field whose value is `json`, the text of one JSON value the caller has checked, written as it is (a tool's
    /// schema or a call's arguments, relayed without being rebuilt).
    @inlinable public mutating func field(_ name: String, json: String) {
        key(name)
        JSONText.append(json, to: &bytes)
    }

    /// Adds a field holding an array of strings.
    @inlinable public mutating func field(_ name: String, strings: [String]) {
        key(name)
        bytes.append(UInt8(ascii: "["))
        for (index, string) in strings.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONText.appendQuoted(string, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Adds a field holding an array of objects.
    @inlinable public mutating func field(_ name: String, objects: [JSONText]) {
        key(name)
        bytes.append(UInt8(ascii: "["))
        for (index, object) in objects.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            append(object)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Adds a field holding an array of one object per item, each written in place by `build` (no text of its own
    /// to copy in): for the long lists, a conversation's messages.
    @inlinable public mutating func field<Items: Sequence>(
        _ name: String, objectsFrom items: Items,
        _ build: (inout JSONText, Items.Element) -> Void
    ) {
        key(name)
        bytes.append(UInt8(ascii: "["))
        var object = JSONText()
        var isFirst = true
        for item in items {
            if !isFirst { bytes.append(UInt8(ascii: ",")) }
            isFirst = false
            // The object takes these bytes, opens itself at their end, adds its fields, and hands them back.
            swap(&object.bytes, &bytes)
            object.bytes.append(UInt8(ascii: "{"))
            object.isEmpty = true
            build(&object, item)
            swap(&object.bytes, &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// The finished object's bytes.
    @inlinable public var resultBytes: [UInt8] { bytes + [UInt8(ascii: "}")] }

    /// The finished object.
    @inlinable public var result: String { String(decoding: resultBytes, as: UTF8.self) }

    /// The object's members, without its braces (empty when it has none).
    @inlinable public var members: ArraySlice<UInt8> { bytes.dropFirst() }

    /// Appends a finished object, without copying it into a `result` first.
    @inlinable mutating func append(_ object: JSONText) {
        bytes.append(contentsOf: object.bytes)
        bytes.append(UInt8(ascii: "}"))
    }

    @inlinable mutating func key(_ name: String) {
        if !isEmpty { bytes.append(UInt8(ascii: ",")) }
        isEmpty = false
        JSONText.appendQuoted(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    /// `value` as a quoted JSON string literal.
    @inlinable public static func quoted(_ value: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(value.utf8.count + 2)
        appendQuoted(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `value` as a quoted JSON string, escaping what JSON requires and U+2028/U+2029 (our JSON is never
    /// embedded in HTML, so `<`, `>` and `&` stay as they are: HTML in events costs a third less).
    @inlinable public static func appendQuoted(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { appendEscaped($0, to: &out) }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends UTF-8 `text` with JSON's escapes, copying the runs between escapes whole.
    @inlinable static func appendEscaped(_ text: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var runStart = 0
        var index = 0
        while index < text.count {
            let byte = text[index]
            if byte >= 0x20, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte != 0xE2 {
                index += 1
                continue
            }
            var length = 1
            var isControl = false
            let escape: StaticString
            switch byte {
            case UInt8(ascii: "\""): escape = "\\\""
            case UInt8(ascii: "\\"): escape = "\\\\"
            case UInt8(ascii: "\n"): escape = "\\n"
            case UInt8(ascii: "\r"): escape = "\\r"
            case UInt8(ascii: "\t"): escape = "\\t"
            case 0xE2:
                // U+2028 and U+2029 (E2 80 A8, E2 80 A9); any other character with this lead byte is kept.
                guard index + 2 < text.count, text[index + 1] == 0x80,
                    text[index + 2] == 0xA8 || text[index + 2] == 0xA9
                else {
                    index += 1
                    continue
                }
                escape = text[index + 2] == 0xA8 ? "\\u2028" : "\\u2029"
                length = 3
            default:
                escape = "\\u00"
                isControl = true
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<index]))
            escape.withUTF8Buffer { out.append(contentsOf: $0) }
            if isControl {
                out.append(byte < 0x10 ? UInt8(ascii: "0") : UInt8(ascii: "1"))
                out.append(hexDigit(byte & 0xF))
            }
            index += length
            runStart = index
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<text.count]))
    }

    @inlinable static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    /// Appends `value` in decimal.
    @inlinable public static func appendDecimal(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            out.append(contentsOf: buffer[start...])
        }
    }

    /// Appends `text`'s UTF-8 bytes.
    @inlinable static func append(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { out.append(contentsOf: $0) }
    }
}
