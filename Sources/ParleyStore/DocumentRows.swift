import Crypto
import Foundation
import GRDB
import ParleyCore

/// Reading and writing `documents` rows inside the stores' transactions, in one place.
enum DocumentRows {
    /// The columns of a document without its bytes, qualified by `alias` when one is given.
    static func columns(of alias: String? = nil) -> String {
        [
            "id", "user_id", "conversation_id", "collection_id", "message_id", "name", "kind", "byte_count", "status",
            "failure", "page_count", "token_count", "created_at",
        ].map { (alias.map { "\($0)." } ?? "") + $0 }.joined(separator: ", ")
    }

    /// Inserts a document as `reading` where `document.place` says, if that place is the user's; returns it.
    static func insert(_ db: Database, _ document: NewDocument, userID: UserID) throws -> Document {
        let (conversationID, collectionID): (ConversationID?, CollectionID?)
        let owned: Bool
        switch document.place {
        case .conversation(let id):
            (conversationID, collectionID) = (id, nil)
            owned =
                try Bool.fetchOne(
                    db.cachedStatement(sql: "SELECT 1 FROM conversations WHERE id = ? AND user_id = ?"),
                    arguments: [id, userID]) ?? false
        case .collection(let id):
            (conversationID, collectionID) = (nil, id)
            owned =
                try Bool.fetchOne(
                    db.cachedStatement(sql: "SELECT 1 FROM knowledge_collections WHERE id = ? AND user_id = ?"),
                    arguments: [id, userID]) ?? false
        }
        guard owned else { throw StoreError.notFound }
        let digest = SHA256.hash(data: document.bytes).map { String(format: "%02x", $0) }.joined()
        let now = StoredDate.now
        try db.cachedStatement(
            sql: """
                INSERT INTO documents (user_id, conversation_id, collection_id, name, kind, byte_count, digest, data, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            userID, conversationID, collectionID, document.name, document.kind.rawValue, document.bytes.count, digest,
            Data(document.bytes), now,
        ])
        try StorageLedger.enforce(db, userID: userID)
        return Document(
            id: db.lastInsertedRowID, userID: userID, place: document.place, name: document.name, kind: document.kind,
            byteCount: document.bytes.count, status: .reading, createdAt: now.date)
    }

    /// Sends the user's documents `ids` with the message `messageID` of their conversation, in the order given: each
    /// must be read (`ready`), waiting in that conversation and not sent yet; `.notFound` otherwise.
    static func send(_ db: Database, _ ids: [DocumentID], messageID: MessageID, conversationID: ConversationID)
        throws
    {
        let statement = try db.cachedStatement(
            sql: """
                UPDATE documents SET message_id = ?, position = ?
                WHERE id = ? AND conversation_id = ? AND message_id IS NULL AND status = 'ready'
                """)
        for (position, id) in ids.enumerated() {
            try statement.execute(arguments: [messageID, position, id, conversationID])
            guard db.changesCount == 1 else { throw StoreError.notFound }
        }
    }

    /// Fills in the documents of `messages` (all of conversation `conversationID`, in id order) with one query.
    static func attach(_ db: Database, to messages: inout [Message], of conversationID: ConversationID) throws {
        let byMessage = try sent(db, between: messages.first?.id, and: messages.last?.id, of: conversationID)
        guard !byMessage.isEmpty else { return }
        for index in messages.indices { messages[index].documents = byMessage[messages[index].id] ?? [] }
    }

    /// Fills in the ids of the read documents of a reply's history (all of conversation `conversationID`).
    static func attach(_ db: Database, to messages: inout [HistoryMessage], of conversationID: ConversationID) throws {
        let byMessage = try sent(db, between: messages.first?.id, and: messages.last?.id, of: conversationID)
        guard !byMessage.isEmpty else { return }
        for index in messages.indices {
            messages[index].documentIDs = (byMessage[messages[index].id] ?? []).filter { $0.status == .ready }.map(\.id)
        }
    }

    /// The documents sent with the conversation's messages from `first` to `last`, by message, in order.
    private static func sent(
        _ db: Database, between first: MessageID?, and last: MessageID?, of conversationID: ConversationID
    ) throws -> [MessageID: [Document]] {
        guard let first, let last else { return [:] }
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT \(columns()) FROM documents
                    WHERE conversation_id = ? AND message_id BETWEEN ? AND ? ORDER BY message_id, position
                    """), arguments: [conversationID, first, last])
        return Dictionary(grouping: rows.map(Document.init(row:)), by: { $0.messageID ?? 0 })
    }
}

extension Document {
    /// A document from a row selected with `DocumentRows.columns`.
    init(row: Row) {
        let collectionID: CollectionID? = row["collection_id"]
        self.init(
            id: row["id"], userID: row["user_id"],
            place: collectionID.map { .collection($0) } ?? .conversation(row["conversation_id"] ?? 0),
            messageID: row["message_id"], name: row["name"],
            kind: DocumentKind(rawValue: row["kind"]) ?? .text, byteCount: row["byte_count"],
            status: DocumentStatus(rawValue: row["status"]) ?? .failed, failure: row["failure"],
            pageCount: row["page_count"], tokenCount: row["token_count"], createdAt: row.date("created_at"))
    }
}
