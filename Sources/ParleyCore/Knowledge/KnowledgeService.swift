import Logging

/// Knowledge collections as their owner meets them: named sets of documents, private to one user, attached to their
/// conversations and to the assistants they wrote. Another user's collection is never revealed (`.notFound`).
public final class KnowledgeService: Sendable {
    /// The most collections one person may keep: every conversation's settings and every assistant form list them
    /// all as checkboxes.
    public static let maxCollectionsPerUser = 100
    /// The longest name, in characters.
    public static let maxNameLength = 100
    /// The longest description, in characters.
    public static let maxDescriptionLength = 1_000

    let store: any KnowledgeStore
    let documents: any DocumentStore
    let logger: Logger

    /// Creates the service over its stores; storage faults are logged to `logger`.
    public init(
        store: any KnowledgeStore, documents: any DocumentStore, logger: Logger = Logger(label: "parley.knowledge")
    ) {
        self.store = store
        self.documents = documents
        self.logger = logger
    }

    /// The user's collections, by name.
    public func collections(of userID: UserID) async throws(KnowledgeError) -> [KnowledgeCollection] {
        try await storing { try await store.collections(userID: userID) }
    }

    /// One of the user's collections, else `.notFound`.
    public func collection(_ id: CollectionID, of userID: UserID) async throws(KnowledgeError) -> KnowledgeCollection {
        guard let collection = try await storing({ try await store.collection(id: id, userID: userID) }) else {
            throw .notFound
        }
        return collection
    }

    /// Makes a collection of the user's, while they have fewer than `maxCollectionsPerUser`.
    public func create(name: String, description: String, for userID: UserID) async throws(KnowledgeError)
        -> KnowledgeCollection
    {
        let (name, description) = try Self.checked(name: name, description: description)
        let count = try await storing { try await store.collections(userID: userID).count }
        guard count < Self.maxCollectionsPerUser else {
            throw .invalid("You have \(Self.maxCollectionsPerUser) collections, the most one person may have.")
        }
        return try await storing {
            try await store.createCollection(userID: userID, name: name, description: description)
        }
    }

    /// Renames one of the user's collections and replaces its description.
    public func update(_ id: CollectionID, name: String, description: String, for userID: UserID)
        async throws(KnowledgeError) -> KnowledgeCollection
    {
        _ = try await collection(id, of: userID)
        let (name, description) = try Self.checked(name: name, description: description)
        return try await storing {
            try await store.updateCollection(id: id, userID: userID, name: name, description: description)
        }
    }

    /// Deletes one of the user's collections and its documents.
    public func delete(_ id: CollectionID, for userID: UserID) async throws(KnowledgeError) {
        try await storing { try await store.deleteCollection(id: id, userID: userID) }
    }

    /// The documents of one of the user's collections, in the order they were uploaded.
    public func documents(in id: CollectionID, of userID: UserID) async throws(KnowledgeError) -> [Document] {
        _ = try await collection(id, of: userID)
        return try await storing { try await store.documents(collectionID: id, userID: userID) }
    }

    /// Deletes a document of one of the user's collections; `.notFound` for one in another place.
    public func deleteDocument(_ documentID: DocumentID, in id: CollectionID, of userID: UserID)
        async throws(KnowledgeError)
    {
        let document = try await storing { try await documents.document(id: documentID, userID: userID) }
        guard document?.place == .collection(id) else { throw .notFound }
        try await storing { try await documents.deleteDocument(id: documentID, userID: userID) }
    }

    /// The collections attached to one of the user's conversations itself.
    public func collectionIDs(ofConversation id: ConversationID, userID: UserID) async throws(KnowledgeError)
        -> [CollectionID]
    {
        try await storing { try await store.collectionIDs(conversationID: id, userID: userID) }
    }

    /// Attaches exactly `ids` to one of the user's conversations; `.unknownCollections` for ids not theirs.
    public func attach(_ ids: [CollectionID], toConversation id: ConversationID, userID: UserID)
        async throws(KnowledgeError)
    {
        let owned = try await owned(ids, by: userID)
        try await storing { try await store.setCollections(owned, conversationID: id, userID: userID) }
    }

    /// The collections attached to an assistant.
    public func collectionIDs(ofAssistant id: AssistantID) async throws(KnowledgeError) -> [CollectionID] {
        try await storing { try await store.collectionIDs(assistantID: id) }
    }

    /// Attaches exactly `ids`, which must be the author's, to an assistant by `authorID` (whoever may change the
    /// assistant has been checked by the caller).
    public func attach(_ ids: [CollectionID], toAssistant id: AssistantID, authorID: UserID)
        async throws(KnowledgeError)
    {
        let owned = try await owned(ids, by: authorID)
        try await storing { try await store.setCollections(owned, assistantID: id, authorID: authorID) }
    }

    /// `ids` without repeats, in order, when every one is a collection of `userID`'s; else `.unknownCollections`
    /// naming the others. Callers check before they save what the collections go with.
    public func owned(_ ids: [CollectionID], by userID: UserID) async throws(KnowledgeError) -> [CollectionID] {
        var seen = Set<CollectionID>()
        let unique = ids.filter { seen.insert($0).inserted }
        guard !unique.isEmpty else { return [] }
        let mine = Set(try await collections(of: userID).map(\.id))
        let others = unique.filter { !mine.contains($0) }
        guard others.isEmpty else { throw .unknownCollections(others) }
        return unique
    }

    /// The name and description trimmed, or `.invalid` naming the one out of its limits.
    static func checked(name: String, description: String) throws(KnowledgeError) -> (String, String) {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        let description = description.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...maxNameLength).contains(name.count) else {
            throw .invalid("A collection's name needs 1 to \(maxNameLength) characters.")
        }
        guard description.count <= maxDescriptionLength else {
            throw .invalid("A description has at most \(maxDescriptionLength) characters.")
        }
        return (name, description)
    }

    /// Runs a store access, its errors as the service's; a fault is logged.
    private func storing<T>(_ access: () async throws -> T) async throws(KnowledgeError) -> T {
        do {
            return try await access()
        } catch StoreError.notFound {
            throw .notFound
        } catch StoreError.diskFull {
            logger.critical("the disk holding the database is full")
            throw .diskFull
        } catch {
            logger.error("knowledge storage failed", metadata: ["error": "\(error)"])
            throw .storage
        }
    }
}
