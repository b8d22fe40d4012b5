import Foundation
import Logging
import ParleyCore
import PostgresNIO

/// Knowledge collections, and the conversations and assistants they are attached to, in PostgreSQL.
public struct PostgresKnowledgeStore: KnowledgeStore {
    let client: PostgresClient
    let logger: Logger

    /// Creates the store over a database.
    public init(database: PostgresStorage) {
        client = database.client
        logger = database.logger
    }

    /// A collection's columns with its documents counted and their bytes summed.
    private static let columns = """
        SELECT k.id, k.user_id, k.name, k.description, k.created_at, k.updated_at, COUNT(d.id) AS document_count,
               COALESCE(SUM(d.byte_count), 0)::bigint AS byte_count
        FROM knowledge_collections k LEFT JOIN documents d ON d.collection_id = k.id
        """

    public func createCollection(userID: UserID, name: String, description: String) async throws(StoreError)
        -> KnowledgeCollection
    {
        let now = StoredMoment.now
        return try await perform {
            let id =
                try await client.query(
                    """
                    INSERT INTO knowledge_collections (user_id, name, description, created_at, updated_at)
                    VALUES (\(userID), \(name), \(description), \(now), \(now)) RETURNING id
                    """, logger: logger
                ).rows().first?["id"].decode(Int64.self) ?? 0
            return KnowledgeCollection(
                id: id, userID: userID, name: name, description: description, documentCount: 0, byteCount: 0,
                createdAt: now, updatedAt: now)
        }
    }

    public func updateCollection(id: CollectionID, userID: UserID, name: String, description: String)
        async throws(StoreError) -> KnowledgeCollection
    {
        let now = StoredMoment.now
        return try await perform {
            let updated = try await client.query(
                """
                UPDATE knowledge_collections SET name = \(name), description = \(description), updated_at = \(now)
                WHERE id = \(id) AND user_id = \(userID) RETURNING 1
                """, logger: logger
            ).rows()
            guard updated.count == 1, let collection = try await fetch(id, userID: userID) else {
                throw StoreError.notFound
            }
            return collection
        }
    }

    public func deleteCollection(id: CollectionID, userID: UserID) async throws(StoreError) {
        try await perform {
            let deleted = try await client.query(
                "DELETE FROM knowledge_collections WHERE id = \(id) AND user_id = \(userID) RETURNING 1", logger: logger
            ).rows()
            guard deleted.count == 1 else { throw StoreError.notFound }
        }
    }

    public func collection(id: CollectionID, userID: UserID) async throws(StoreError) -> KnowledgeCollection? {
        try await perform { try await fetch(id, userID: userID) }
    }

    public func collections(userID: UserID) async throws(StoreError) -> [KnowledgeCollection] {
        try await perform {
            try await client.query(
                "\(unescaped: Self.columns) WHERE k.user_id = \(userID) GROUP BY k.id ORDER BY lower(k.name), k.id",
                logger: logger
            ).rows().map(KnowledgeCollection.init(row:))
        }
    }

    public func documents(collectionID: CollectionID, userID: UserID) async throws(StoreError) -> [Document] {
        try await perform {
            try await client.query(
                """
                SELECT \(unescaped: PostgresDocumentRows.columns) FROM documents
                WHERE collection_id = \(collectionID) AND user_id = \(userID) ORDER BY id
                """, logger: logger
            ).rows().map(Document.init(row:))
        }
    }

    public func collectionIDs(conversationID: ConversationID, userID: UserID) async throws(StoreError)
        -> [CollectionID]
    {
        try await perform {
            try await requireConversation(conversationID, userID: userID)
            return try await client.query(
                """
                SELECT collection_id FROM conversation_collections WHERE conversation_id = \(conversationID)
                ORDER BY collection_id
                """, logger: logger
            ).collect().map { try $0.decode(Int64.self) }
        }
    }

    public func setCollections(_ ids: [CollectionID], conversationID: ConversationID, userID: UserID)
        async throws(StoreError)
    {
        try await perform {
            try await requireConversation(conversationID, userID: userID)
            try await replace(
                ids, in: "conversation_collections", key: "conversation_id", of: conversationID, owner: userID)
        }
    }

    public func collectionIDs(assistantID: AssistantID) async throws(StoreError) -> [CollectionID] {
        try await perform {
            try await client.query(
                """
                SELECT collection_id FROM assistant_collections WHERE assistant_id = \(assistantID)
                ORDER BY collection_id
                """, logger: logger
            ).collect().map { try $0.decode(Int64.self) }
        }
    }

    public func setCollections(_ ids: [CollectionID], assistantID: AssistantID, authorID: UserID)
        async throws(StoreError)
    {
        try await perform {
            let authored = try await client.query(
                "SELECT 1 FROM assistants WHERE id = \(assistantID) AND author_id = \(authorID)", logger: logger
            ).rows()
            guard !authored.isEmpty else { throw StoreError.notFound }
            try await replace(ids, in: "assistant_collections", key: "assistant_id", of: assistantID, owner: authorID)
        }
    }

    /// One of the user's collections, or nil.
    private func fetch(_ id: CollectionID, userID: UserID) async throws -> KnowledgeCollection? {
        try await client.query(
            "\(unescaped: Self.columns) WHERE k.id = \(id) AND k.user_id = \(userID) GROUP BY k.id", logger: logger
        ).rows().first.map(KnowledgeCollection.init(row:))
    }

    /// Throws `.notFound` unless the conversation is the user's.
    private func requireConversation(_ id: ConversationID, userID: UserID) async throws {
        let owned = try await client.query(
            "SELECT 1 FROM conversations WHERE id = \(id) AND user_id = \(userID)", logger: logger
        ).rows()
        guard !owned.isEmpty else { throw StoreError.notFound }
    }

    /// Makes `ids` (those of them that are `owner`'s collections) the collections of row `id` in the join `table`, in
    /// one transaction.
    private func replace(_ ids: [CollectionID], in table: String, key: String, of id: Int64, owner: UserID)
        async throws
    {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query(
                "DELETE FROM \(unescaped: table) WHERE \(unescaped: key) = \(id)", logger: logger)
            try await connection.query(
                """
                INSERT INTO \(unescaped: table) (\(unescaped: key), collection_id)
                SELECT \(id)::bigint, id FROM knowledge_collections WHERE id = ANY(\(ids)) AND user_id = \(owner)
                ON CONFLICT DO NOTHING
                """, logger: logger)
        }
    }
}

extension KnowledgeCollection {
    /// A collection from a row of `PostgresKnowledgeStore`'s columns.
    init(row: PostgresRandomAccessRow) throws {
        self.init(
            id: try row["id"].decode(Int64.self), userID: try row["user_id"].decode(Int64.self),
            name: try row["name"].decode(String.self), description: try row["description"].decode(String.self),
            documentCount: Int(try row["document_count"].decode(Int64.self)),
            byteCount: try row["byte_count"].decode(Int64.self), createdAt: try row.date("created_at"),
            updatedAt: try row.date("updated_at"))
    }
}
