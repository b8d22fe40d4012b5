import Foundation
import ParleyCore
import PostgresNIO

/// The attachment side of the chat store in PostgreSQL: reads scoped by the owner, and images added to a reply.
extension PostgresChatStore {
    public func attachment(id: AttachmentID, userID: UserID) async throws(StoreError) -> AttachmentContent? {
        try await perform {
            try await client.query(
                """
                SELECT \(unescaped: PostgresAttachmentRows.metadataColumns), d.data FROM attachments a
                JOIN attachment_data d ON d.id = a.data_id WHERE a.id = \(id) AND a.user_id = \(userID)
                """, logger: logger
            ).rows().first.map(AttachmentContent.init(row:))
        }
    }

    public func attachmentContents(messageIDs: [MessageID], userID: UserID) async throws(StoreError) -> [MessageID:
        [AttachmentContent]]
    {
        guard !messageIDs.isEmpty else { return [:] }
        return try await perform {
            let rows = try await client.query(
                """
                SELECT \(unescaped: PostgresAttachmentRows.metadataColumns), d.data FROM attachments a
                JOIN attachment_data d ON d.id = a.data_id
                WHERE a.user_id = \(userID) AND a.message_id = ANY(\(messageIDs)) ORDER BY a.message_id, a.position
                """, logger: logger
            ).rows()
            return Dictionary(grouping: try rows.map(AttachmentContent.init(row:)), by: \.attachment.messageID)
        }
    }

    public func addAttachments(_ images: [NewImage], messageID: MessageID, userID: UserID) async throws(StoreError)
        -> [Attachment]
    {
        try await perform {
            try await client.withTransaction(logger: logger) { connection in
                guard
                    let row = try await connection.query(
                        """
                        SELECT m.conversation_id, (SELECT COUNT(*) FROM attachments WHERE message_id = m.id) AS count
                        FROM messages m JOIN conversations c ON c.id = m.conversation_id
                        WHERE m.id = \(messageID) AND c.user_id = \(userID) FOR UPDATE OF m
                        """, logger: logger
                    ).rows().first
                else { throw StoreError.notFound }
                return try await PostgresAttachmentRows.insert(
                    images, messageID: messageID, conversationID: try row["conversation_id"].decode(Int64.self),
                    firstPosition: Int(try row["count"].decode(Int64.self)), on: connection, logger: logger)
            }
        }
    }
}
