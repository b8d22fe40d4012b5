import Crypto
import Foundation
import Logging
import ParleyCore
import PostgresNIO

/// Reading and writing `attachments` rows in PostgreSQL, in one place.
enum PostgresAttachmentRows {
    /// The columns of an attachment without its bytes, of the table `a`.
    static let metadataColumns =
        "a.id, a.message_id, a.position, a.content_type, a.file_name, a.byte_count, a.width, a.height, a.digest"

    /// Stores `images` as the attachments of a message of conversation `conversationID`, in order; returns them.
    static func insert(
        _ images: [NewImage], messageID: MessageID, conversationID: ConversationID, firstPosition: Int = 0,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> [Attachment] {
        let now = StoredMoment.now
        var attachments: [Attachment] = []
        for (position, image) in images.enumerated() {
            let digest = SHA256.hash(data: image.bytes).map { String(format: "%02x", $0) }.joined()
            let id =
                try await connection.query(
                    """
                    WITH bytes AS (INSERT INTO attachment_data (data) VALUES (\(Data(image.bytes))) RETURNING id)
                    INSERT INTO attachments (user_id, conversation_id, message_id, position, content_type, file_name,
                        byte_count, width, height, digest, data_id, created_at)
                    SELECT c.user_id, c.id, \(messageID), \(firstPosition + position), \(image.facts.format.contentType),
                        \(image.fileName), \(image.bytes.count), \(image.facts.width), \(image.facts.height), \(digest),
                        bytes.id, \(now)
                    FROM conversations c, bytes WHERE c.id = \(conversationID)
                    RETURNING id
                    """, logger: logger
                ).rows().first?["id"].decode(Int64.self) ?? 0
            attachments.append(
                Attachment(
                    id: id, messageID: messageID, format: image.facts.format, fileName: image.fileName,
                    byteCount: image.bytes.count, width: image.facts.width, height: image.facts.height, digest: digest))
        }
        return attachments
    }

    /// The attachments of the conversation's messages from `first` to `last`, by message, in order.
    static func byMessage(
        between first: MessageID, and last: MessageID, of conversationID: ConversationID,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> [MessageID: [Attachment]] {
        let rows = try await connection.query(
            """
            SELECT \(unescaped: metadataColumns) FROM attachments a
            WHERE a.conversation_id = \(conversationID) AND a.message_id BETWEEN \(first) AND \(last)
            ORDER BY a.message_id, a.position
            """, logger: logger
        ).rows()
        return Dictionary(grouping: try rows.map(Attachment.init(row:)), by: \.messageID)
    }
}
