import Foundation
import Logging
import ParleyCore
import PostgresNIO

/// Share links and their snapshots in PostgreSQL: owner actions are scoped by the owner, the public lookup by token
/// digest.
public struct PostgresShareStore: ShareStore {
    let client: PostgresClient
    let logger: Logger

    /// Creates the store over a database.
    public init(database: PostgresStorage) {
        client = database.client
        logger = database.logger
    }

    public func createShare(
        conversationID: ConversationID, userID: UserID, tokenHash: String, content: ShareContent, now: Date
    ) async throws(StoreError) -> Share {
        let now = StoredMoment.rounded(now)
        let expiresAt = content.expiresAt.map(StoredMoment.rounded)
        return try await perform {
            try await client.withTransaction(logger: logger) { connection in
                guard
                    let id = try await connection.query(
                        """
                        INSERT INTO shares (token_hash, user_id, conversation_id, title, model, author_name, created_at,
                            snapshot_at, expires_at, include_reasoning)
                        SELECT \(tokenHash), user_id, id, \(content.title), \(content.model), \(content.authorName),
                            \(now), \(now), \(expiresAt), \(content.includesReasoning)
                        FROM conversations WHERE id = \(conversationID) AND user_id = \(userID)
                        RETURNING id
                        """, logger: logger
                    ).rows().first?["id"].decode(Int64.self)
                else { throw StoreError.notFound }
                try await insertMessages(content.messages, shareID: id, on: connection)
                return Share(
                    id: id, userID: userID, conversationID: conversationID, title: content.title, model: content.model,
                    authorName: content.authorName, createdAt: now, snapshotAt: now, expiresAt: expiresAt, views: 0,
                    includesReasoning: content.includesReasoning)
            }
        }
    }

    public func updateShares(conversationID: ConversationID, userID: UserID, content: ShareContent, now: Date)
        async throws(StoreError) -> Int
    {
        let now = StoredMoment.rounded(now)
        let expiresAt = content.expiresAt.map(StoredMoment.rounded)
        return try await perform {
            try await client.withTransaction(logger: logger) { connection in
                let ids = try await connection.query(
                    """
                    UPDATE shares SET title = \(content.title), model = \(content.model),
                        author_name = \(content.authorName), snapshot_at = \(now), expires_at = \(expiresAt),
                        include_reasoning = \(content.includesReasoning)
                    WHERE conversation_id = \(conversationID) AND user_id = \(userID)
                        AND (expires_at IS NULL OR expires_at > \(now))
                    RETURNING id
                    """, logger: logger
                ).rows().map { try $0["id"].decode(Int64.self) }
                for id in ids {
                    try await connection.query("DELETE FROM share_messages WHERE share_id = \(id)", logger: logger)
                    try await insertMessages(content.messages, shareID: id, on: connection)
                }
                return ids.count
            }
        }
    }

    public func share(tokenHash: String) async throws(StoreError) -> Share? {
        try await perform {
            try await client.query("SELECT * FROM shares WHERE token_hash = \(tokenHash)", logger: logger).rows()
                .first.map(Share.init(row:))
        }
    }

    public func messages(shareID: ShareID) async throws(StoreError) -> [Message] {
        try await perform {
            try await client.withConnection { connection in
                try await snapshotMessages(shareID: shareID, on: connection)
            }
        }
    }

    public func recordView(shareID: ShareID) async throws(StoreError) {
        try await perform {
            try await client.query("UPDATE shares SET views = views + 1 WHERE id = \(shareID)", logger: logger)
        }
    }

    public func sharedAttachment(id: AttachmentID, shareID: ShareID) async throws(StoreError) -> AttachmentContent? {
        try await perform {
            try await client.query(
                """
                SELECT \(unescaped: PostgresAttachmentRows.metadataColumns), d.data FROM attachments a
                JOIN attachment_data d ON d.id = a.data_id
                WHERE a.id = \(id) AND a.id IN (
                    SELECT sa.attachment_id FROM share_attachments sa JOIN share_messages m ON m.id = sa.share_message_id
                    WHERE m.share_id = \(shareID))
                """, logger: logger
            ).rows().first.map(AttachmentContent.init(row:))
        }
    }

    public func shares(userID: UserID) async throws(StoreError) -> [Share] {
        try await perform {
            try await client.query("SELECT * FROM shares WHERE user_id = \(userID) ORDER BY id DESC", logger: logger)
                .rows().map(Share.init(row:))
        }
    }

    public func deleteShare(id: ShareID, userID: UserID) async throws(StoreError) {
        try await perform {
            let deleted = try await client.query(
                "DELETE FROM shares WHERE id = \(id) AND user_id = \(userID) RETURNING 1", logger: logger
            ).rows()
            guard !deleted.isEmpty else { throw StoreError.notFound }
        }
    }

    public func copyShare(id: ShareID, toUser userID: UserID, model: String, now: Date) async throws(StoreError)
        -> Conversation
    {
        let now = StoredMoment.rounded(now)
        return try await perform {
            try await client.withTransaction(logger: logger) { connection in
                guard
                    let title = try await connection.query(
                        "SELECT title FROM shares WHERE id = \(id)", logger: logger
                    ).rows().first?["title"].decode(String.self)
                else { throw StoreError.notFound }
                let conversationID =
                    try await connection.query(
                        """
                        INSERT INTO conversations (user_id, title, model, system_prompt, created_at, updated_at)
                        VALUES (\(userID), \(title), \(model), '', \(now), \(now)) RETURNING id
                        """, logger: logger
                    ).rows().first?["id"].decode(Int64.self) ?? 0
                // A share is one branch: each message hangs off the one before it, and the last one is current.
                var previous: MessageID?
                for message in try await snapshotMessages(shareID: id, on: connection) {
                    let created = StoredMoment.rounded(message.createdAt)
                    let copyID =
                        try await connection.query(
                            """
                            INSERT INTO messages (conversation_id, role, content, reasoning, reasoning_ms, status, model,
                                parent_id, created_at, updated_at)
                            VALUES (\(conversationID), \(message.role.rawValue), \(message.content), \(message.reasoning),
                                \(message.reasoningMilliseconds), \(message.status.rawValue), \(message.model),
                                \(previous), \(created), \(now))
                            RETURNING id
                            """, logger: logger
                        ).rows().first?["id"].decode(Int64.self) ?? 0
                    previous = copyID
                    try await connection.query(
                        """
                        INSERT INTO attachments (user_id, conversation_id, message_id, position, content_type, file_name,
                            byte_count, width, height, digest, data_id, created_at)
                        SELECT \(userID), \(conversationID), \(copyID), sa.position, a.content_type, a.file_name,
                            a.byte_count, a.width, a.height, a.digest, a.data_id, \(now)
                        FROM share_attachments sa JOIN attachments a ON a.id = sa.attachment_id
                        WHERE sa.share_message_id = \(message.id)
                        """, logger: logger)
                }
                guard
                    let row = try await connection.query(
                        """
                        UPDATE conversations SET current_leaf_id = \(previous) WHERE id = \(conversationID) RETURNING *
                        """, logger: logger
                    ).rows().first
                else { throw StoreError.notFound }
                try await PostgresStorageQuota.enforce(userID: userID, on: connection, logger: logger)
                return try Conversation(row: row)
            }
        }
    }

    /// Copies the messages as given into a share's snapshot, their reasoning included (`ShareService` leaves it out of
    /// them unless the share includes it).
    private func insertMessages(_ messages: [Message], shareID: ShareID, on connection: PostgresConnection)
        async throws
    {
        for (position, message) in messages.enumerated() {
            let created = StoredMoment.rounded(message.createdAt)
            let sharedID =
                try await connection.query(
                    """
                    INSERT INTO share_messages (share_id, position, role, content, reasoning, reasoning_ms, status,
                        model, created_at, tool_steps)
                    VALUES (\(shareID), \(position), \(message.role.rawValue), \(message.content), \(message.reasoning),
                        \(message.reasoningMilliseconds), \(message.status.rawValue), \(message.model), \(created),
                        \(StoredJSONList.json(message.toolSteps)))
                    RETURNING id
                    """, logger: logger
                ).rows().first?["id"].decode(Int64.self) ?? 0
            guard !message.attachments.isEmpty else { continue }
            try await connection.query(
                """
                INSERT INTO share_attachments (share_message_id, attachment_id, position)
                SELECT \(sharedID)::bigint, attachment, ordinality - 1
                FROM unnest(\(message.attachments.map(\.id))::bigint[]) WITH ORDINALITY AS t(attachment, ordinality)
                """, logger: logger)
        }
    }

    /// A share's snapshot, in order, with its attachments.
    private func snapshotMessages(shareID: ShareID, on connection: PostgresConnection) async throws -> [Message] {
        var messages = try await connection.query(
            """
            SELECT m.*, s.conversation_id FROM share_messages m JOIN shares s ON s.id = m.share_id
            WHERE m.share_id = \(shareID) ORDER BY m.position
            """, logger: logger
        ).rows().map(Message.init(sharedRow:))
        let rows = try await connection.query(
            """
            SELECT \(unescaped: PostgresAttachmentRows.metadataColumns), sa.share_message_id
            FROM share_messages m JOIN share_attachments sa ON sa.share_message_id = m.id
            JOIN attachments a ON a.id = sa.attachment_id
            WHERE m.share_id = \(shareID) ORDER BY sa.share_message_id, sa.position
            """, logger: logger
        ).rows()
        let bySharedMessage = Dictionary(grouping: rows) { row in (try? row["share_message_id"].decode(Int64.self)) ?? 0
        }
        for index in messages.indices {
            messages[index].attachments = try (bySharedMessage[messages[index].id] ?? []).map(Attachment.init(row:))
        }
        return messages
    }
}

extension Share {
    /// A share from a row of `shares`.
    init(row: PostgresRandomAccessRow) throws {
        self.init(
            id: try row["id"].decode(Int64.self), userID: try row["user_id"].decode(Int64.self),
            conversationID: try row["conversation_id"].decode(Int64.self), title: try row["title"].decode(String.self),
            model: try row["model"].decode(String.self), authorName: try row["author_name"].decode(String?.self),
            createdAt: try row.date("created_at"), snapshotAt: try row.date("snapshot_at"),
            expiresAt: try row.optionalDate("expires_at"), views: Int(try row["views"].decode(Int64.self)),
            includesReasoning: try row["include_reasoning"].decode(Bool.self))
    }
}

extension Message {
    /// A snapshot message of a share (a `share_messages` row joined with its share's `conversation_id`).
    init(sharedRow row: PostgresRandomAccessRow) throws {
        self.init(
            id: try row["id"].decode(Int64.self), conversationID: try row["conversation_id"].decode(Int64.self),
            role: MessageRole(rawValue: try row["role"].decode(String.self)) ?? .user,
            content: try row["content"].decode(String.self), reasoning: try row["reasoning"].decode(String?.self),
            reasoningMilliseconds: try row["reasoning_ms"].decode(Int64?.self).map(Int.init),
            status: MessageStatus(rawValue: try row["status"].decode(String.self)) ?? .complete,
            model: try row["model"].decode(String.self), createdAt: try row.date("created_at"))
        toolSteps = StoredJSONList.decoded(try row["tool_steps"].decode(String?.self))
    }
}
