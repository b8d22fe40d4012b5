import Crypto

/// The name a session goes by on pages and in form paths: the first 128 bits of its id's SHA-256, as hex, so that a
/// page never shows a session id (which, with the secret, would make its token) and a handle gives no id away.
enum SessionHandle {
    /// The handle of the session `id`.
    static func of(_ id: String) -> String {
        RandomToken.hex(SHA256.hash(data: Array(id.utf8)).prefix(16))
    }
}
