import Foundation

/// An admin's invitation to make an account, by a one-time link (only the token's digest is stored); `email`, when
/// set, is the one address the account may have.
public struct Invite: Sendable, Equatable {
    public var id: Int64
    public var email: String?
    public var createdBy: UserID?
    public var createdAt: Date
    public var expiresAt: Date
    public var usedAt: Date?
    public var usedBy: UserID?

    /// Creates an invite value.
    public init(
        id: Int64, email: String?, createdBy: UserID?, createdAt: Date, expiresAt: Date, usedAt: Date? = nil,
        usedBy: UserID? = nil
    ) {
        self.id = id
        self.email = email
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
        self.usedBy = usedBy
    }

    /// Whether the invite can still make an account at `now`: unused and not expired.
    public func isUsable(at now: Date) -> Bool { usedAt == nil && expiresAt > now }
}
