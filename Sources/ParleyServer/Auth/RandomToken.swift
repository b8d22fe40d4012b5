/// Unguessable tokens: 128 random bits from the system's generator, as lowercase hex.
enum RandomToken {
    /// A new token of `bytes` random bytes. The generator is asked for eight bytes at a time: each ask is a system
    /// call, and a byte at a time made every request (which gets a CSRF token) pay for sixteen.
    static func make(bytes: Int = 16) -> String {
        var generator = SystemRandomNumberGenerator()
        var hex: [UInt8] = []
        hex.reserveCapacity(2 * bytes)
        var word: UInt64 = 0
        for index in 0..<bytes {
            if index % 8 == 0 { word = generator.next() }
            let byte = UInt8(truncatingIfNeeded: word >> (8 * UInt64(index % 8)))
            hex.append(hexDigits[Int(byte >> 4)])
            hex.append(hexDigits[Int(byte & 0x0f)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// `bytes` as lowercase hex.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        var hex: [UInt8] = []
        for byte in bytes {
            hex.append(hexDigits[Int(byte >> 4)])
            hex.append(hexDigits[Int(byte & 0x0f)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Compares two strings in time that does not depend on where they differ.
    static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let a = Array(lhs.utf8), b = Array(rhs.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
