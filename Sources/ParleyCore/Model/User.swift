import Foundation

/// A person who can sign in.
public struct User: Sendable, Equatable {
    public var id: UserID
    public var email: String
    public var passwordHash: String
    public var isAdmin: Bool
    public var isDisabled: Bool
    public var createdAt: Date
    /// The identity provider's subject (`sub`) this account is linked to, if it signs in with single sign-on.
    public var ssoSubject: String?
    /// The name the person chose to be shown by (`AccountRules.displayNameProblem`); nil shows the email.
    public var displayName: String?

    /// Creates a user value.
    public init(
        id: UserID, email: String, passwordHash: String, isAdmin: Bool, isDisabled: Bool, createdAt: Date,
        ssoSubject: String? = nil, displayName: String? = nil
    ) {
        self.id = id
        self.email = email
        self.passwordHash = passwordHash
        self.isAdmin = isAdmin
        self.isDisabled = isDisabled
        self.createdAt = createdAt
        self.ssoSubject = ssoSubject
        self.displayName = displayName
    }

    /// What the person is called on pages: their display name, else their email.
    public var label: String { displayName ?? email }

    /// The password hash of an account made by single sign-on: no password matches it.
    public static let noPasswordHash = "!"

    /// Whether the account has a password it can sign in with (one made by single sign-on has none).
    public var hasPassword: Bool { passwordHash != Self.noPasswordHash }
}

/// A signed-in session, stored server-side so that it can be revoked.
public struct Session: Sendable, Equatable {
    public var id: String
    public var userID: UserID
    public var expiresAt: Date
    /// When the session was last used, as last written (at most every few minutes); nil before its first write.
    public var lastUsedAt: Date?

    /// Creates a session value.
    public init(id: String, userID: UserID, expiresAt: Date, lastUsedAt: Date? = nil) {
        self.id = id
        self.userID = userID
        self.expiresAt = expiresAt
        self.lastUsedAt = lastUsedAt
    }
}

/// A live session together with its user, as one lookup returns them.
public struct ActiveSession: Sendable, Equatable {
    public var session: Session
    public var user: User

    /// Creates the pair.
    public init(session: Session, user: User) {
        self.session = session
        self.user = user
    }

    /// The session's user id.
    public var userID: UserID { session.userID }
    /// When the session expires.
    public var expiresAt: Date { session.expiresAt }
}
