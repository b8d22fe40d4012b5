/// Masks the CSRF token afresh for every page (as Rails and Django do): a page carries a random pad followed by the
/// token XOR the pad, so no two compressed pages repeat the secret's bytes, and its size cannot leak it (BREACH).
enum CSRFTokenMask {
    /// The token (lowercase hex, as `RandomToken` makes it) masked with a new random pad: pad + (token XOR pad), in
    /// hex.
    static func mask(_ token: String) -> String {
        let pad = RandomToken.make(bytes: (token.utf8.count + 1) / 2)
        return pad + xor(Array(token.utf8), Array(pad.utf8))
    }

    /// Whether `sent` (a masked token, or the bare token a script read from elsewhere) stands for `token`; the
    /// comparison takes the same time wherever they differ.
    static func matches(_ sent: String, token: String) -> Bool {
        let bytes = Array(sent.utf8)
        guard bytes.count == 2 * token.utf8.count else { return RandomToken.constantTimeEqual(sent, token) }
        let half = bytes.count / 2
        return RandomToken.constantTimeEqual(xor(Array(bytes[half...]), Array(bytes[..<half])), token)
    }

    /// The hex digits of `lhs` XOR those of `rhs`, digit by digit (non-hex digits count as 0).
    private static func xor(_ lhs: [UInt8], _ rhs: [UInt8]) -> String {
        String(
            zip(lhs, rhs).map { a, b in
                Character(String(nibble(a) ^ nibble(b), radix: 16))
            })
    }

    private static func nibble(_ digit: UInt8) -> UInt8 {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: 0
        }
    }
}
