import Foundation
import GRDB
import ParleyCore

/// Knowledge collections, and the conversations and assistants they are attached to, in SQLite.
public struct SQLiteKnowledgeStore: KnowledgeStore {
    let pool: DatabasePool
    let writer: GroupCommitWriter

    /// Creates the store over an open database.
    public init(database: ParleyDatabase) {
        pool = database.pool
        writer = database.writer
    }

    /// A collection's columns with its documents counted and their bytes summed.
    private static let columns = """
        SELECT k.id, k.user_id, k.name, k.description, k.created_at, k.updated_at, COUNT(d.id) AS document_count,
               COALESCE(SUM(d.byte_count), 0) AS byte_count
        FROM knowledge_collections k LEFT JOIN documents d ON d.collection_id = k.id
        """

    public func createCollection(userID: UserID, name: String, description: String) async throws(StoreError)
        -> KnowledgeCollection
    {
        try await perform {
            try await writer.write { db in
                let now = StoredDate.now
                try db.cachedStatement(
                    sql: """
                        INSERT INTO knowledge_collections (user_id, name, description, created_at, updated_at)
                        VALUES (?, ?, ?, ?, ?)
                        """
                ).execute(arguments: [userID, name, description, now, now])
                guard let made = try Self.fetch(db.lastInsertedRowID, userID: userID, db) else {
                    throw StoreError.notFound
                }
                return made
            }
        }
    }

    public func updateCollection(id: CollectionID, userID: UserID, name: String, description: String)
        async throws(StoreError) -> KnowledgeCollection
    {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(
                    sql: """
                        UPDATE knowledge_collections SET name = ?, description = ?, updated_at = ?
                        WHERE id = ? AND user_id = ?
                        """
                ).execute(arguments: [name, description, StoredDate.now, id, userID])
                guard db.changesCount == 1, let updated = try Self.fetch(id, userID: userID, db) else {
                    throw StoreError.notFound
                }
                return updated
            }
        }
    }

    public func deleteCollection(id: CollectionID, userID: UserID) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(sql: "DELETE FROM knowledge_collections WHERE id = ? AND user_id = ?")
                    .execute(arguments: [id, userID])
                guard db.changesCount == 1 else { throw StoreError.notFound }
            }
        }
    }

    public func collection(id: CollectionID, userID: UserID) async throws(StoreError) -> KnowledgeCollection? {
        try await perform { try pool.lookup { db in try Self.fetch(id, userID: userID, db) } }
    }

    public func collections(userID: UserID) async throws(StoreError) -> [KnowledgeCollection] {
        try await perform {
            try pool.lookup { db in
                try Row.fetchAll(
                    db.cachedStatement(
                        sql: Self.columns + " WHERE k.user_id = ? GROUP BY k.id ORDER BY k.name COLLATE NOCASE, k.id"),
                    arguments: [userID]
                ).map(KnowledgeCollection.init(row:))
            }
        }
    }

    public func documents(collectionID: CollectionID, userID: UserID) async throws(StoreError) -> [Document] {
        try await perform {
            try pool.lookup { db in
                try Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT \(DocumentRows.columns()) FROM documents
                            WHERE collection_id = ? AND user_id = ? ORDER BY id
                            """), arguments: [collectionID, userID]
                ).map(Document.init(row:))
            }
        }
    }

    public func collectionIDs(conversationID: ConversationID, userID: UserID) async throws(StoreError)
        -> [CollectionID]
    {
        try await perform {
            try pool.lookup { db in
                try Self.requireConversation(conversationID, userID: userID, db)
                return try CollectionID.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT collection_id FROM conversation_collections
                            WHERE conversation_id = ? ORDER BY collection_id
                            """), arguments: [conversationID])
            }
        }
    }

    public func setCollections(_ ids: [CollectionID], conversationID: ConversationID, userID: UserID)
        async throws(StoreError)
    {
        try await perform {
            try await writer.write { db in
                try Self.requireConversation(conversationID, userID: userID, db)
                try Self.replace(
                    ids, in: "conversation_collections", key: "conversation_id", of: conversationID, owner: userID,
                    db)
            }
        }
    }

    public func collectionIDs(assistantID: AssistantID) async throws(StoreError) -> [CollectionID] {
        try await perform {
            try pool.lookup { db in
                try CollectionID.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT collection_id FROM assistant_collections
                            WHERE assistant_id = ? ORDER BY collection_id
                            """), arguments: [assistantID])
            }
        }
    }

    public func setCollections(_ ids: [CollectionID], assistantID: AssistantID, authorID: UserID)
        async throws(StoreError)
    {
        try await perform {
            try await writer.write { db in
                let authored = try Bool.fetchOne(
                    db.cachedStatement(sql: "SELECT 1 FROM assistants WHERE id = ? AND author_id = ?"),
                    arguments: [assistantID, authorID])
                guard authored == true else { throw StoreError.notFound }
                try Self.replace(
                    ids, in: "assistant_collections", key: "assistant_id", of: assistantID, owner: authorID, db)
            }
        }
    }

    /// One of the user's collections, or nil.
    private static func fetch(_ id: CollectionID, userID: UserID, _ db: Database) throws -> KnowledgeCollection? {
        try Row.fetchOne(
            db.cachedStatement(sql: columns + " WHERE k.id = ? AND k.user_id = ? GROUP BY k.id"),
            arguments: [id, userID]
        ).map(KnowledgeCollection.init(row:))
    }

    /// Throws `.notFound` unless the conversation is the user's.
    private static func requireConversation(_ id: ConversationID, userID: UserID, _ db: Database) throws {
        let owned = try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT 1 FROM conversations WHERE id = ? AND user_id = ?"),
            arguments: [id, userID])
        guard owned == true else { throw StoreError.notFound }
    }

    /// Makes `ids` (those of them that are `owner`'s collections) the collections of row `id` in the join `table`.
    private static func replace(
        _ ids: [CollectionID], in table: String, key: String, of id: Int64, owner: UserID, _ db: Database
    ) throws {
        try db.cachedStatement(sql: "DELETE FROM \(table) WHERE \(key) = ?").execute(arguments: [id])
        let insert = try db.cachedStatement(
            sql: """
                INSERT OR IGNORE INTO \(table) (\(key), collection_id)
                SELECT ?, id FROM knowledge_collections WHERE id = ? AND user_id = ?
                """)
        for collectionID in ids { try insert.execute(arguments: [id, collectionID, owner]) }
    }
}

extension KnowledgeCollection {
    /// A collection from a row of the store's `columns`.
    init(row: Row) {
        self.init(
            id: row["id"], userID: row["user_id"], name: row["name"], description: row["description"],
            documentCount: row["document_count"], byteCount: row["byte_count"], createdAt: row.date("created_at"),
            updatedAt: row.date("updated_at"))
    }
}
