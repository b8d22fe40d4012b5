import Foundation

/// A personal API key as its owner and admins see it: never its text, which only its creation shows.
public struct APIKey: Sendable, Equatable {
    public var id: Int64
    public var userID: UserID
    public var name: String
    public var createdAt: Date
    public var lastUsedAt: Date?
    /// When it stops working; nil: never.
    public var expiresAt: Date?

    /// Creates a key value.
    public init(id: Int64, userID: UserID, name: String, createdAt: Date, lastUsedAt: Date?, expiresAt: Date?) {
        self.id = id
        self.userID = userID
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.expiresAt = expiresAt
    }
}
