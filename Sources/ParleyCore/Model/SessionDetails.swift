import Foundation

/// One of a user's live sessions as their settings page lists it: when it began and was last used, and its origin.
public struct SessionDetails: Sendable, Equatable {
    public var id: String
    public var createdAt: Date
    public var lastUsedAt: Date?
    public var expiresAt: Date
    public var origin: SessionOrigin

    /// Creates a session's details.
    public init(id: String, createdAt: Date, lastUsedAt: Date?, expiresAt: Date, origin: SessionOrigin) {
        self.id = id
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.expiresAt = expiresAt
        self.origin = origin
    }
}
