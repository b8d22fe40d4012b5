import Foundation

/// Users, sessions and server settings, as the core needs them.
public protocol AccountStore: Sendable {
    /// Creates a user; throws `.duplicate` when the email is taken.
    func createUser(email: String, passwordHash: String, isAdmin: Bool) async throws(StoreError) -> User
    /// Creates a user through sign-up: the first account becomes admin; later ones only when `allowWhenUsersExist`.
    func signUp(email: String, passwordHash: String, allowWhenUsersExist: Bool) async throws(StoreError) -> User
    /// Whether any account exists (sign-up in `first-user` mode is closed once one does).
    func hasUsers() async throws(StoreError) -> Bool
    /// The user with this email (case-insensitive).
    func user(email: String) async throws(StoreError) -> User?
    /// Stores a new session with the device and address it began from (its last use is its start).
    func createSession(_ session: Session, origin: SessionOrigin) async throws(StoreError)
    /// The session with this id and its user, if it exists and has not expired at `now` (one lookup per request).
    func session(id: String, now: Date) async throws(StoreError) -> ActiveSession?
    /// Records that a session was used at `date` (callers write it at most every few minutes).
    func touchSession(id: String, at date: Date) async throws(StoreError)
    /// A user's sessions that have not expired at `now`, most recently used first.
    func sessions(userID: UserID, now: Date) async throws(StoreError) -> [SessionDetails]
    /// Revokes one session.
    func deleteSession(id: String) async throws(StoreError)
    /// Revokes one session of this user's; `.notFound` when the user has no session with this id.
    func deleteSession(id: String, userID: UserID) async throws(StoreError)
    /// Revokes every session of a user.
    func deleteSessions(userID: UserID) async throws(StoreError)
    /// Replaces a user's password hash and revokes every session of theirs but `keptSessionID`, in one transaction;
    /// `.notFound` when there is no such user.
    func changePasswordHash(_ hash: String, userID: UserID, keepingSession keptSessionID: String)
        async throws(StoreError)
    /// Sets the name a user is shown by (nil: their email); `.notFound` when there is no such user.
    func setDisplayName(_ name: String?, userID: UserID) async throws(StoreError)
    /// Deletes a user and everything of theirs (sessions, conversations, messages); returns the ids of the
    /// conversations deleted; `.notFound` when there is no such user.
    func deleteUser(id: UserID) async throws(StoreError) -> [ConversationID]
    /// Reads a setting, storing `makeValue()` first if it is unset (atomically).
    func setting(_ key: String, orInsert makeValue: @escaping @Sendable () -> String) async throws(StoreError) -> String
}
