/// Who an identity provider's verified ID token says signed in: its subject, the email it vouches for, and the groups
/// it names.
public struct SingleSignOnIdentity: Sendable, Equatable {
    /// The provider's stable id for the person (`sub`).
    public var subject: String
    public var email: String?
    /// Whether the provider has checked that the person owns `email` (`email_verified`).
    public var emailVerified: Bool
    /// The provider's groups (from the configured claim), in its spelling.
    public var groups: [String]
    /// The person's name (`name`), which a new account takes as its display name.
    public var name: String?

    /// Creates an identity value.
    public init(subject: String, email: String?, emailVerified: Bool, groups: [String], name: String? = nil) {
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.groups = groups
        self.name = name
    }
}
