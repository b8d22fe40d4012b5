import Crypto
import Foundation
import Logging
import ParleyCore
import PostgresNIO

/// Reading and writing `documents` rows in PostgreSQL, in one place.
enum PostgresDocumentRows {
    /// The columns of a document without its bytes.
    static let columns = """
        id, user_id, conversation_id, collection_id, message_id, name, kind, byte_count, status, failure, page_count,
        token_count, created_at
        """

    /// Inserts a document as `reading` where `document.place` says, if that place is the user's, within their storage
    /// quota (the transaction on `connection` is rolled back otherwise); returns it.
    static func insert(
        _ document: NewDocument, userID: UserID, on connection: PostgresConnection, logger: Logger
    ) async throws -> Document {
        let (conversationID, collectionID): (ConversationID?, CollectionID?)
        let owner: PostgresQuery
        switch document.place {
        case .conversation(let id):
            (conversationID, collectionID) = (id, nil)
            owner = "SELECT 1 FROM conversations WHERE id = \(id) AND user_id = \(userID)"
        case .collection(let id):
            (conversationID, collectionID) = (nil, id)
            owner = "SELECT 1 FROM knowledge_collections WHERE id = \(id) AND user_id = \(userID)"
        }
        guard try await !connection.query(owner, logger: logger).rows().isEmpty else { throw StoreError.notFound }
        let digest = SHA256.hash(data: document.bytes).map { String(format: "%02x", $0) }.joined()
        let now = StoredMoment.now
        let id =
            try await connection.query(
                """
                INSERT INTO documents (user_id, conversation_id, collection_id, name, kind, byte_count, digest, data,
                    created_at)
                VALUES (\(userID), \(conversationID), \(collectionID), \(document.name), \(document.kind.rawValue),
                    \(document.bytes.count), \(digest), \(Data(document.bytes)), \(now))
                RETURNING id
                """, logger: logger
            ).rows().first?["id"].decode(Int64.self) ?? 0
        try await PostgresStorageQuota.enforce(userID: userID, on: connection, logger: logger)
        return Document(
            id: id, userID: userID, place: document.place, name: document.name, kind: document.kind,
            byteCount: document.bytes.count, status: .reading, createdAt: now)
    }
}

/// The storage quota in PostgreSQL: a user's stored bytes (kept by triggers) against their quota, checked in the
/// transaction that stores more.
enum PostgresStorageQuota {
    /// The columns `stored_bytes` and `quota` of the user row `u`: their stored bytes (folded and not yet folded,
    /// `PostgresStoredBytes`) and quota (their own, else the default setting, else 1 GiB).
    static let statusColumns = """
        u.stored_bytes + COALESCE((SELECT SUM(bytes) FROM stored_byte_changes WHERE user_id = u.id), 0)::bigint
            AS stored_bytes,
        COALESCE(u.storage_quota_bytes,
            (SELECT value::bigint FROM settings WHERE key = '\(StorageStatus.defaultQuotaSetting)' AND value <> ''),
            \(StorageStatus.fallbackQuotaBytes)) AS quota
        """

    /// The user's stored bytes and quota (`statusColumns`).
    static func status(userID: UserID, on connection: PostgresConnection, logger: Logger) async throws -> StorageStatus
    {
        let row = try await connection.query(
            "SELECT \(unescaped: statusColumns) FROM users u WHERE u.id = \(userID)", logger: logger
        ).rows().first
        return try StorageStatus(row: row)
    }

    /// Throws `.storageFull` when what the transaction has stored so far puts the user over their quota, so that the
    /// transaction rolls all of it back.
    static func enforce(userID: UserID, on connection: PostgresConnection, logger: Logger) async throws {
        try enforce(try await status(userID: userID, on: connection, logger: logger))
    }

    /// Throws `.storageFull` when `status` is over its quota.
    static func enforce(_ status: StorageStatus) throws {
        if status.isOver { throw StoreError.storageFull(status) }
    }
}

extension StorageStatus {
    /// A status from a row with `PostgresStorageQuota.statusColumns`; a missing user's is empty under the fallback.
    init(row: PostgresRandomAccessRow?) throws {
        self.init(
            storedBytes: try row?["stored_bytes"].decode(Int64.self) ?? 0,
            quotaBytes: try row?["quota"].decode(Int64.self) ?? StorageStatus.fallbackQuotaBytes)
    }
}

extension Document {
    /// A document from a row of `PostgresDocumentRows.columns`.
    init(row: PostgresRandomAccessRow) throws {
        let collectionID = try row["collection_id"].decode(Int64?.self)
        let conversationID = try row["conversation_id"].decode(Int64?.self)
        self.init(
            id: try row["id"].decode(Int64.self), userID: try row["user_id"].decode(Int64.self),
            place: collectionID.map { .collection($0) } ?? .conversation(conversationID ?? 0),
            messageID: try row["message_id"].decode(Int64?.self), name: try row["name"].decode(String.self),
            kind: DocumentKind(rawValue: try row["kind"].decode(String.self)) ?? .text,
            byteCount: Int(try row["byte_count"].decode(Int64.self)),
            status: DocumentStatus(rawValue: try row["status"].decode(String.self)) ?? .failed,
            failure: try row["failure"].decode(String?.self), pageCount: Int(try row["page_count"].decode(Int64.self)),
            tokenCount: Int(try row["token_count"].decode(Int64.self)), createdAt: try row.date("created_at"))
    }
}

extension DocumentContent {
    /// A document with its bytes, from a row of `PostgresDocumentRows.columns` and `data`.
    init(row: PostgresRandomAccessRow) throws {
        self.init(document: try Document(row: row), bytes: [UInt8](try row["data"].decode(Data.self)))
    }
}

extension PostgresDocumentRows {
    /// Sends the user's documents `ids` with the message `messageID` of their conversation, in the order given: each
    /// must be read (`ready`), waiting in that conversation and not sent yet; `.notFound` otherwise.
    static func send(
        _ ids: [DocumentID], messageID: MessageID, conversationID: ConversationID, on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        for (position, id) in ids.enumerated() {
            let sent = try await connection.query(
                """
                UPDATE documents SET message_id = \(messageID), position = \(position)
                WHERE id = \(id) AND conversation_id = \(conversationID) AND message_id IS NULL AND status = 'ready'
                RETURNING 1
                """, logger: logger
            ).rows()
            guard sent.count == 1 else { throw StoreError.notFound }
        }
    }

    /// The documents sent with the conversation's messages from `first` to `last`, by message, in order.
    static func byMessage(
        between first: MessageID, and last: MessageID, of conversationID: ConversationID,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> [MessageID: [Document]] {
        let rows = try await connection.query(
            """
            SELECT \(unescaped: columns) FROM documents
            WHERE conversation_id = \(conversationID) AND message_id BETWEEN \(first) AND \(last)
            ORDER BY message_id, position
            """, logger: logger
        ).rows()
        return Dictionary(grouping: try rows.map(Document.init(row:)), by: { $0.messageID ?? 0 })
    }
}
