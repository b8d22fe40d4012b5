import Foundation

/// A person who can sign in.
public struct User: Sendable, Equatable {
    public var id: UserID
    public var email: String
    public var passwordHash: String
    public var isAdmin: Bool
    public var isDisabled: Bool
    public var createdAt: Date

    /// Creates a user value.
    public init(id: UserID, email: String, passwordHash: String, isAdmin: Bool, isDisabled: Bool, createdAt: Date) {
        self.id = id
        self.email = email
        self.passwordHash = passwordHash
        self.isAdmin = isAdmin
        self.isDisabled = isDisabled
        self.createdAt = createdAt
    }
}

/// A signed-in session, stored server-side so that it can be revoked.
public struct Session: Sendable, Equatable {
    public var id: String
    public var userID: UserID
    public var expiresAt: Date

    /// Creates a session value.
    public init(id: String, userID: UserID, expiresAt: Date) {
        self.id = id
        self.userID = userID
        self.expiresAt = expiresAt
    }
}
