import Foundation

/// Text files' bytes as text: UTF-8 (its byte-order mark dropped), UTF-16 with a byte-order mark, else Windows-1252,
/// which decodes any byte (Latin-1 and the common legacy Windows text).
enum TextDecoding {
    /// Whether `bytes` start with a UTF-16 byte-order mark.
    static func hasUTF16ByteOrderMark(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF])
    }

    /// The text of `bytes`.
    static func decode(_ bytes: [UInt8]) -> String {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return String(decoding: bytes.dropFirst(3), as: UTF8.self) }
        if hasUTF16ByteOrderMark(bytes), let text = String(data: Data(bytes), encoding: .utf16) { return text }
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return String(data: Data(bytes), encoding: .windowsCP1252) ?? String(decoding: bytes, as: UTF8.self)
    }
}
