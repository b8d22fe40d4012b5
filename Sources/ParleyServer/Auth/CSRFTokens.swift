import Crypto

/// CSRF tokens bound to a session (the signed double-submit cookie): a random nonce followed by the HMAC of the nonce
/// and the session id under a key derived from the session secret, all lowercase hex. A token planted in a browser's
/// cookie by someone else (a sibling subdomain, a network attacker on plain HTTP) was made for another session, or
/// none, and is refused; a new session, at sign-in, and none, at sign-out, get a new token.
struct CSRFTokens: Sendable {
    private let key: SymmetricKey
    /// The nonce's length in bytes.
    private static let nonceBytes = 16

    /// Tokens keyed from the session secret (its own key: the HMAC of a label under the secret's SHA-256).
    init(secret: String) {
        let root = SymmetricKey(data: SHA256.hash(data: Array(secret.utf8)))
        key = SymmetricKey(data: HMAC<SHA256>.authenticationCode(for: Array("parley-csrf".utf8), using: root))
    }

    /// A new token for the session `sessionID` ("" for a visitor who is not signed in).
    func make(sessionID: String) -> String {
        let nonce = RandomToken.make(bytes: Self.nonceBytes)
        return nonce + mac(nonce: nonce, sessionID: sessionID)
    }

    /// Whether `token` was made by `make(sessionID:)` for this session; compared in constant time.
    func isValid(_ token: String, sessionID: String) -> Bool {
        guard token.utf8.count == 2 * Self.nonceBytes + 2 * SHA256.byteCount else { return false }
        let nonce = String(token.prefix(2 * Self.nonceBytes))
        return RandomToken.constantTimeEqual(
            String(token.dropFirst(2 * Self.nonceBytes)), mac(nonce: nonce, sessionID: sessionID))
    }

    /// The HMAC of the nonce and the session id, in hex.
    private func mac(nonce: String, sessionID: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Array((nonce + ":" + sessionID).utf8), using: key)
        return RandomToken.hex(code)
    }
}
