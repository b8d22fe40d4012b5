import Foundation

/// Personal API keys, stored as digests of their text.
public protocol APIKeyStore: Sendable {
    /// Stores a new key of the user's by its digest.
    func createKey(userID: UserID, name: String, digest: String, expiresAt: Date?) async throws(StoreError) -> APIKey
    /// The user's keys, newest first.
    func keys(userID: UserID) async throws(StoreError) -> [APIKey]
    /// Every user's keys with their owners' emails, newest first (for admins).
    func allKeys() async throws(StoreError) -> [(key: APIKey, email: String)]
    /// Deletes a key; with `userID`, only that user's (`.notFound` otherwise).
    func deleteKey(id: Int64, userID: UserID?) async throws(StoreError)
    /// The key with this digest and its user, if the key has not expired by `now`.
    func key(digest: String, now: Date) async throws(StoreError) -> (key: APIKey, user: User)?
    /// Records that the key was used at `date`.
    func touchKey(id: Int64, at date: Date) async throws(StoreError)
}
