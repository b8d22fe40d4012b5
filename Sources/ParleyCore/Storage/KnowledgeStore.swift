/// Knowledge collections and what they are attached to, always scoped by their owner: another user's collection is
/// never read, changed or attached.
public protocol KnowledgeStore: Sendable {
    /// Stores a new collection of the user's and returns it.
    func createCollection(userID: UserID, name: String, description: String) async throws(StoreError)
        -> KnowledgeCollection
    /// Renames one of the user's collections and replaces its description; `.notFound` when it is not theirs.
    func updateCollection(id: CollectionID, userID: UserID, name: String, description: String)
        async throws(StoreError) -> KnowledgeCollection
    /// Deletes one of the user's collections with its documents (their bytes leave the user's storage);
    /// `.notFound` when it is not theirs.
    func deleteCollection(id: CollectionID, userID: UserID) async throws(StoreError)
    /// One of the user's collections, or nil.
    func collection(id: CollectionID, userID: UserID) async throws(StoreError) -> KnowledgeCollection?
    /// The user's collections, by name.
    func collections(userID: UserID) async throws(StoreError) -> [KnowledgeCollection]
    /// The documents of one of the user's collections, in the order they were uploaded.
    func documents(collectionID: CollectionID, userID: UserID) async throws(StoreError) -> [Document]
    /// The collections attached to one of the user's conversations itself (its assistant's aside); `.notFound` when
    /// the conversation is not theirs.
    func collectionIDs(conversationID: ConversationID, userID: UserID) async throws(StoreError) -> [CollectionID]
    /// Attaches exactly `ids` (those of them that are the user's) to one of the user's conversations; `.notFound`
    /// when the conversation is not theirs.
    func setCollections(_ ids: [CollectionID], conversationID: ConversationID, userID: UserID)
        async throws(StoreError)
    /// The collections attached to an assistant.
    func collectionIDs(assistantID: AssistantID) async throws(StoreError) -> [CollectionID]
    /// Attaches exactly `ids` (those of them that are its author's) to an assistant by `authorID`; `.notFound` when
    /// there is no such assistant of theirs.
    func setCollections(_ ids: [CollectionID], assistantID: AssistantID, authorID: UserID) async throws(StoreError)
}
