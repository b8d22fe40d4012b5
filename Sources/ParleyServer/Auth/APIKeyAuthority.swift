import Crypto
import Foundation
import ParleyCore

/// Personal API keys: made as `pk-` and 43 base64url characters (32 random bytes), stored and found by their SHA-256,
/// good on the JSON API, its event streams and the OpenAI-compatible endpoint alone, and never for an expired key or a
/// disabled user.
/// A key's last use is written at most once a minute.
struct APIKeyAuthority: Sendable {
    /// What every key begins with.
    static let prefix = "pk-"
    /// How often a key's last use is written.
    static let touchInterval: TimeInterval = 60

    let store: any APIKeyStore
    private let now: @Sendable () -> Date

    /// Creates the authority over the store, reading time from `now`.
    init(store: any APIKeyStore, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.now = now
    }

    /// A new key's text and the digest it is stored under.
    static func make() -> (key: String, digest: String) {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let text =
            prefix
            + Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return (text, digest(text))
    }

    /// The digest a key is stored under: its SHA-256, as hex.
    static func digest(_ key: String) -> String {
        RandomToken.hex(SHA256.hash(data: Array(key.utf8)))
    }

    /// Whether a request to `path` may be made with a key: the JSON API (but not the keys' own routes), `/v1`, and a
    /// conversation's event stream (`/c/{id}/events`), where a send through the API points (`events_url`).
    static func accepts(path: String) -> Bool {
        (path.hasPrefix("/api/") && !path.hasPrefix("/api/keys")) || path.hasPrefix("/v1/") || isEventStream(path)
    }

    /// Whether `path` is `/c/{id}/events` with a numeric id.
    private static func isEventStream(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[1] == "c" && parts[3] == "events" && !parts[2].isEmpty
            && parts[2].allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// The identity a key proves, or nil for an unknown or expired key or a disabled user; writes the key's last use
    /// when the stored one is older than `touchInterval` (a failed write is only a stale date).
    func identity(key: String) async -> Identity? {
        let now = now()
        guard key.hasPrefix(Self.prefix), key.utf8.count <= 200,
            let found = try? await store.key(digest: Self.digest(key), now: now), !found.user.isDisabled
        else { return nil }
        if found.key.lastUsedAt.map({ now.timeIntervalSince($0) >= Self.touchInterval }) ?? true {
            try? await store.touchKey(id: found.key.id, at: now)
        }
        // A key names no session: signing out, which needs one, is a page's, where keys do not work.
        return Identity(user: found.user, sessionID: "", viaBearer: true, apiKeyID: found.key.id)
    }
}
