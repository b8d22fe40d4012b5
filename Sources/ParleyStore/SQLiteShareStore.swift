import Foundation
import GRDB
import ParleyCore

/// Share links and their snapshots in SQLite: owner actions are scoped by the owner, the public lookup by token digest.
public struct SQLiteShareStore: ShareStore {
    let pool: DatabasePool
    let writer: GroupCommitWriter

    /// Creates the store over an open database.
    public init(database: ParleyDatabase) {
        pool = database.pool
        writer = database.writer
    }

    public func createShare(
        conversationID: ConversationID, userID: UserID, tokenHash: String, content: ShareContent,
        now: Date
    ) async throws(StoreError) -> Share {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(
                    sql: """
                        INSERT INTO shares (token_hash, user_id, conversation_id, title, model, author_name, created_at, snapshot_at, expires_at,
                                            include_reasoning)
                        SELECT ?, user_id, id, ?, ?, ?, ?, ?, ?, ? FROM conversations WHERE id = ? AND user_id = ?
                        """
                ).execute(arguments: [
                    tokenHash, content.title, content.model, content.authorName, now, now, content.expiresAt,
                    content.includesReasoning, conversationID, userID,
                ])
                guard db.changesCount == 1 else { throw StoreError.notFound }
                let id = db.lastInsertedRowID
                try insertMessages(db, shareID: id, content.messages)
                return Share(
                    id: id, userID: userID, conversationID: conversationID, title: content.title, model: content.model,
                    authorName: content.authorName, createdAt: now, snapshotAt: now, expiresAt: content.expiresAt,
                    views: 0, includesReasoning: content.includesReasoning)
            }
        }
    }

    public func updateShares(
        conversationID: ConversationID, userID: UserID, content: ShareContent,
        now: Date
    ) async throws(StoreError) -> Int {
        try await perform {
            try await writer.write { db in
                let ids = try ShareID.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT id FROM shares WHERE conversation_id = ? AND user_id = ? AND (expires_at IS NULL OR expires_at > ?)
                            """), arguments: [conversationID, userID, now])
                for id in ids {
                    try db.cachedStatement(
                        sql: """
                            UPDATE shares SET title = ?, model = ?, author_name = ?, snapshot_at = ?, expires_at = ?, include_reasoning = ?
                            WHERE id = ?
                            """
                    ).execute(arguments: [
                        content.title, content.model, content.authorName, now, content.expiresAt,
                        content.includesReasoning, id,
                    ])
                    try db.cachedStatement(sql: "DELETE FROM share_messages WHERE share_id = ?").execute(arguments: [id]
                    )
                    try insertMessages(db, shareID: id, content.messages)
                }
                return ids.count
            }
        }
    }

    public func share(tokenHash: String) async throws(StoreError) -> Share? {
        try await perform {
            try pool.lookup { db in
                try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT * FROM shares WHERE token_hash = ?"), arguments: [tokenHash]
                ).map(Share.init(row:))
            }
        }
    }

    public func messages(shareID: ShareID) async throws(StoreError) -> [Message] {
        try await perform { try pool.lookup { db in try snapshotMessages(db, shareID: shareID) } }
    }

    public func sharedAttachment(id: AttachmentID, shareID: ShareID) async throws(StoreError) -> AttachmentContent? {
        try await perform {
            try await pool.scan { db in
                try Row.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT \(AttachmentRows.contentColumns(of: "a")) FROM attachments a JOIN attachment_data d ON d.id = a.data_id
                            WHERE a.id = ? AND a.id IN (
                                SELECT sa.attachment_id FROM share_attachments sa JOIN share_messages m ON m.id = sa.share_message_id
                                WHERE m.share_id = ?)
                            """), arguments: [id, shareID]
                ).map(AttachmentContent.init(row:))
            }
        }
    }

    public func recordView(shareID: ShareID) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(sql: "UPDATE shares SET views = views + 1 WHERE id = ?").execute(arguments: [
                    shareID
                ])
            }
        }
    }

    public func shares(userID: UserID) async throws(StoreError) -> [Share] {
        try await perform {
            try pool.lookup { db in
                try Row.fetchAll(
                    db.cachedStatement(sql: "SELECT * FROM shares WHERE user_id = ? ORDER BY id DESC"),
                    arguments: [userID]
                )
                .map(Share.init(row:))
            }
        }
    }

    public func deleteShare(id: ShareID, userID: UserID) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(sql: "DELETE FROM shares WHERE id = ? AND user_id = ?").execute(arguments: [
                    id, userID,
                ])
                if db.changesCount == 0 { throw StoreError.notFound }
            }
        }
    }

    public func copyShare(id: ShareID, toUser userID: UserID, model: String, now: Date) async throws(StoreError)
        -> Conversation
    {
        try await perform {
            try await writer.write { db in
                guard
                    let share = try Row.fetchOne(
                        db.cachedStatement(sql: "SELECT * FROM shares WHERE id = ?"), arguments: [id]
                    )
                    .map(Share.init(row:))
                else { throw StoreError.notFound }
                try db.cachedStatement(
                    sql: """
                        INSERT INTO conversations (user_id, title, model, system_prompt, created_at, updated_at) VALUES (?, ?, ?, '', ?, ?)
                        """
                ).execute(arguments: [userID, share.title, model, now, now])
                let conversationID = db.lastInsertedRowID
                // A share is one branch: each message hangs off the one before it, and the last one is current.
                var previous: MessageID?
                for message in try snapshotMessages(db, shareID: id) {
                    try db.cachedStatement(
                        sql: """
                            INSERT INTO messages (conversation_id, role, content, reasoning, reasoning_ms, status, model, parent_id,
                                                  created_at, updated_at)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                            """
                    ).execute(arguments: [
                        conversationID, message.role.rawValue, message.content, message.reasoning,
                        message.reasoningMilliseconds, message.status.rawValue, message.model, previous,
                        message.createdAt, now,
                    ])
                    let copyID = db.lastInsertedRowID
                    previous = copyID
                    try db.cachedStatement(
                        sql: """
                            INSERT INTO attachments (user_id, conversation_id, message_id, position, content_type, file_name, byte_count,
                                                     width, height, digest, data_id, created_at)
                            SELECT ?, ?, ?, sa.position, a.content_type, a.file_name, a.byte_count, a.width, a.height, a.digest, a.data_id, ?
                            FROM share_attachments sa JOIN attachments a ON a.id = sa.attachment_id WHERE sa.share_message_id = ?
                            """
                    ).execute(arguments: [userID, conversationID, copyID, now, message.id])
                }
                try db.cachedStatement(sql: "UPDATE conversations SET current_leaf_id = ? WHERE id = ?")
                    .execute(arguments: [previous, conversationID])
                try StorageLedger.enforce(db, userID: userID)
                guard
                    let conversation = try Row.fetchOne(
                        db.cachedStatement(sql: "SELECT * FROM conversations WHERE id = ?"),
                        arguments: [conversationID]
                    ).map(Conversation.init(row:))
                else {
                    throw StoreError.notFound
                }
                return conversation
            }
        }
    }

    /// Copies the messages as given into a share's snapshot, their reasoning included (`ShareService` leaves it out of
    /// them unless the share includes it).
    private func insertMessages(_ db: Database, shareID: ShareID, _ messages: [Message]) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO share_messages (share_id, position, role, content, reasoning, reasoning_ms, status, model, created_at,
                                            tool_steps)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        let attachments = try db.cachedStatement(
            sql: "INSERT INTO share_attachments (share_message_id, attachment_id, position) VALUES (?, ?, ?)")
        for (position, message) in messages.enumerated() {
            try statement.execute(arguments: [
                shareID, position, message.role.rawValue, message.content, message.reasoning,
                message.reasoningMilliseconds, message.status.rawValue, message.model, message.createdAt,
                StoredJSONList.json(message.toolSteps),
            ])
            let sharedMessageID = db.lastInsertedRowID
            for (index, attachment) in message.attachments.enumerated() {
                try attachments.execute(arguments: [sharedMessageID, attachment.id, index])
            }
        }
    }

    private func snapshotMessages(_ db: Database, shareID: ShareID) throws -> [Message] {
        var messages = try Array(
            Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT m.*, s.conversation_id FROM share_messages m JOIN shares s ON s.id = m.share_id
                        WHERE m.share_id = ? ORDER BY m.position
                        """), arguments: [shareID]
            ).map(Message.init(sharedRow:)))
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT \(AttachmentRows.metadataColumns(of: "a")), sa.share_message_id
                    FROM share_messages m JOIN share_attachments sa ON sa.share_message_id = m.id JOIN attachments a ON a.id = sa.attachment_id
                    WHERE m.share_id = ? ORDER BY sa.share_message_id, sa.position
                    """), arguments: [shareID])
        let bySharedMessage = Dictionary(grouping: rows) { row -> Int64 in row["share_message_id"] }
        for index in messages.indices {
            messages[index].attachments = (bySharedMessage[messages[index].id] ?? []).map(Attachment.init(row:))
        }
        return messages
    }
}
