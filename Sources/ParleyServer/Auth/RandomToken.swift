/// Unguessable tokens: 128 random bits from the system's generator, as lowercase hex.
enum RandomToken {
    /// A new token of `bytes` random bytes.
    static func make(bytes: Int = 16) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            return String(byte >> 4, radix: 16) + String(byte & 0x0f, radix: 16)
        }.joined()
    }

    /// Compares two strings in time that does not depend on where they differ.
    static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let a = Array(lhs.utf8), b = Array(rhs.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
