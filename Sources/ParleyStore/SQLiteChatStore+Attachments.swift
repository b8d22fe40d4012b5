import Foundation
import GRDB
import ParleyCore

/// The attachment side of the chat store: reads scoped by the owner, and images added to a reply.
extension SQLiteChatStore {
    public func attachment(id: AttachmentID, userID: UserID) async throws(StoreError) -> AttachmentContent? {
        try await perform {
            try await pool.scan { db in
                try Row.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT \(AttachmentRows.contentColumns(of: "a")) FROM attachments a JOIN attachment_data d ON d.id = a.data_id
                            WHERE a.id = ? AND a.user_id = ?
                            """), arguments: [id, userID]
                ).map(AttachmentContent.init(row:))
            }
        }
    }

    public func attachmentContents(messageIDs: [MessageID], userID: UserID) async throws(StoreError) -> [MessageID:
        [AttachmentContent]]
    {
        try await perform {
            try await pool.scan { db in
                try AttachmentRows.contents(db, messageIDs: messageIDs, userID: userID)
            }
        }
    }

    public func addAttachments(_ images: [NewImage], messageID: MessageID, userID: UserID) async throws(StoreError)
        -> [Attachment]
    {
        try await perform {
            try await writer.write { db in
                guard
                    let conversationID = try ConversationID.fetchOne(
                        db.cachedStatement(
                            sql: """
                                SELECT m.conversation_id FROM messages m JOIN conversations c ON c.id = m.conversation_id
                                WHERE m.id = ? AND c.user_id = ?
                                """), arguments: [messageID, userID])
                else { throw StoreError.notFound }
                let first =
                    try Int.fetchOne(
                        db.cachedStatement(sql: "SELECT COUNT(*) FROM attachments WHERE message_id = ?"),
                        arguments: [messageID]) ?? 0
                return try AttachmentRows.insert(
                    db, images: images, messageID: messageID, conversationID: conversationID,
                    now: Date(), firstPosition: first)
            }
        }
    }
}
