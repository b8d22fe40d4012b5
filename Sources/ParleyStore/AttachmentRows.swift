import Crypto
import Foundation
import GRDB
import ParleyCore

/// Reading and writing `attachments` rows inside the stores' transactions, in one place.
enum AttachmentRows {
    /// The columns of an attachment without its bytes, qualified by a table alias when one is given.
    static func metadataColumns(of alias: String? = nil) -> String {
        ["id", "message_id", "position", "content_type", "file_name", "byte_count", "width", "height", "digest"]
            .map { column in (alias.map { "\($0)." } ?? "") + column }.joined(separator: ", ")
    }

    /// An attachment's columns with its bytes, which live in `attachment_data` (alias `d`) and are read as `data`;
    /// `alias` names the attachments table.
    static func contentColumns(of alias: String) -> String {
        metadataColumns(of: alias) + ", d.data AS data"
    }

    /// Stores `images` as the attachments of a message, in order; returns them.
    static func insert(
        _ db: Database, images: [NewImage], messageID: MessageID, conversationID: ConversationID,
        now: Date, firstPosition: Int = 0
    ) throws -> [Attachment] {
        let bytes = try db.cachedStatement(sql: "INSERT INTO attachment_data (data) VALUES (?)")
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO attachments (user_id, conversation_id, message_id, position, content_type, file_name, byte_count,
                                         width, height, digest, data_id, created_at)
                SELECT user_id, id, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM conversations WHERE id = ?
                """)
        return try images.enumerated().map { position, image in
            let digest = SHA256.hash(data: image.bytes).map { String(format: "%02x", $0) }.joined()
            try bytes.execute(arguments: [Data(image.bytes)])
            try statement.execute(arguments: [
                messageID, firstPosition + position, image.facts.format.contentType, image.fileName, image.bytes.count,
                image.facts.width, image.facts.height, digest, db.lastInsertedRowID, now, conversationID,
            ])
            return Attachment(
                id: db.lastInsertedRowID, messageID: messageID, format: image.facts.format, fileName: image.fileName,
                byteCount: image.bytes.count, width: image.facts.width, height: image.facts.height, digest: digest)
        }
    }

    /// Fills in the attachments of `messages` (all of conversation `conversationID`, in id order) with one query.
    static func attach(_ db: Database, to messages: inout [some HoldsAttachments], of conversationID: ConversationID)
        throws
    {
        guard let first = messages.first, let last = messages.last else { return }
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT \(metadataColumns()) FROM attachments
                    WHERE conversation_id = ? AND message_id BETWEEN ? AND ? ORDER BY message_id, position
                    """), arguments: [conversationID, first.id, last.id])
        guard !rows.isEmpty else { return }
        let byMessage = Dictionary(grouping: rows.map(Attachment.init(row:)), by: \.messageID)
        for index in messages.indices { messages[index].attachments = byMessage[messages[index].id] ?? [] }
    }

    /// The user's attachments with their bytes of the given messages, grouped by message, in order.
    static func contents(_ db: Database, messageIDs: [MessageID], userID: UserID) throws -> [MessageID:
        [AttachmentContent]]
    {
        guard !messageIDs.isEmpty else { return [:] }
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT \(contentColumns(of: "a")) FROM attachments a JOIN attachment_data d ON d.id = a.data_id
                WHERE a.user_id = ? AND a.message_id IN (\(databaseQuestionMarks(count: messageIDs.count))) ORDER BY a.message_id, a.position
                """, arguments: StatementArguments([userID] + messageIDs))
        return Dictionary(grouping: rows.map(AttachmentContent.init(row:)), by: \.attachment.messageID)
    }
}

/// A message, whole or as a reply's history holds it, whose attachments `AttachmentRows.attach` fills in.
protocol HoldsAttachments {
    var id: MessageID { get }
    var attachments: [Attachment] { get set }
}

extension Message: HoldsAttachments {}
extension HistoryMessage: HoldsAttachments {}

extension Attachment {
    init(row: Row) {
        self.init(
            id: row["id"], messageID: row["message_id"], format: ImageFormat(contentType: row["content_type"]) ?? .png,
            fileName: row["file_name"], byteCount: row["byte_count"], width: row["width"], height: row["height"],
            digest: row["digest"])
    }
}

extension AttachmentContent {
    init(row: Row) {
        let data: Data = row["data"]
        self.init(attachment: Attachment(row: row), bytes: [UInt8](data))
    }
}
