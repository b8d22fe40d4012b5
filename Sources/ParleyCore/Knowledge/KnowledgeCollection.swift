import Foundation

/// A named collection of one user's documents, which they attach to conversations and to their assistants; its
/// documents and their bytes counted.
public struct KnowledgeCollection: Sendable, Equatable {
    public var id: CollectionID
    public var userID: UserID
    public var name: String
    public var description: String
    /// How many documents it holds, whatever their status.
    public var documentCount: Int
    /// Its documents' original bytes together.
    public var byteCount: Int64
    public var createdAt: Date
    public var updatedAt: Date

    /// Creates a collection value.
    public init(
        id: CollectionID, userID: UserID, name: String, description: String = "", documentCount: Int = 0,
        byteCount: Int64 = 0, createdAt: Date = Date(), updatedAt: Date = Date()
    ) {
        self.id = id
        self.userID = userID
        self.name = name
        self.description = description
        self.documentCount = documentCount
        self.byteCount = byteCount
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
