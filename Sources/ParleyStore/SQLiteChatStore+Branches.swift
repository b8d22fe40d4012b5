import GRDB
import ParleyCore

/// Where an exchange's reply goes: after a new question under `parent`, or as another answer to an existing question.
enum ExchangePlace {
    case ask(parent: MessageID?)
    case answer(MessageID)
}

/// A conversation as a tree: the branch it shows, choosing another, deleting a subtree, and a reply's history.
extension SQLiteChatStore {
    public func messages(
        conversationID: ConversationID, userID: UserID, branch: BranchSelection, afterID: MessageID?, limit: Int
    ) async throws(StoreError) -> Page<Message> {
        try await perform {
            try pool.lookup { db in
                guard let conversation = try ownedConversation(db, id: conversationID, userID: userID) else {
                    throw StoreError.notFound
                }
                return ConversationTree(
                    try conversationMessages(db, conversationID: conversationID, afterID: nil, limit: nil)
                ).page(branch, leaf: conversation.currentLeafID, afterID: afterID, limit: limit)
            }
        }
    }

    public func selectBranch(conversationID: ConversationID, userID: UserID, messageID: MessageID)
        async throws(StoreError) -> MessageID
    {
        try await perform {
            try await writer.write { db in
                guard try ownedConversation(db, id: conversationID, userID: userID) != nil,
                    let leaf = try Self.subtree(db, of: messageID, conversationID: conversationID)?.max()
                else { throw StoreError.notFound }
                try db.cachedStatement(sql: "UPDATE conversations SET current_leaf_id = ? WHERE id = ?")
                    .execute(arguments: [leaf, conversationID])
                return leaf
            }
        }
    }

    public func deleteMessage(conversationID: ConversationID, userID: UserID, messageID: MessageID)
        async throws(StoreError)
    {
        try await perform {
            try await writer.write { db in
                guard let conversation = try ownedConversation(db, id: conversationID, userID: userID),
                    let parent = try Row.fetchOne(
                        db.cachedStatement(sql: "SELECT parent_id FROM messages WHERE id = ? AND conversation_id = ?"),
                        arguments: [messageID, conversationID]),
                    let doomed = try Self.subtree(db, of: messageID, conversationID: conversationID)
                else { throw StoreError.notFound }
                let parentID: MessageID? = parent[0]
                let delete = try db.cachedStatement(sql: "DELETE FROM messages WHERE id = ?")
                for id in doomed { try delete.execute(arguments: [id]) }
                guard let leaf = conversation.currentLeafID, doomed.contains(leaf) else { return }
                let newLeaf =
                    try parentID.flatMap { try Self.subtree(db, of: $0, conversationID: conversationID)?.max() }
                    ?? MessageID.fetchOne(
                        db.cachedStatement(sql: "SELECT MAX(id) FROM messages WHERE conversation_id = ?"),
                        arguments: [conversationID])
                try db.cachedStatement(sql: "UPDATE conversations SET current_leaf_id = ? WHERE id = ?")
                    .execute(arguments: [newLeaf, conversationID])
            }
        }
    }

    /// Where an exchange anchored at `anchor` goes; `.notFound` when the anchor is not a user message of the
    /// conversation (or, with no question `asking`, when there is nothing to answer).
    static func place(_ db: Database, _ anchor: ExchangeAnchor, conversationID: ConversationID, asking: Bool) throws
        -> ExchangePlace
    {
        switch anchor {
        case .currentLeaf where asking:
            let leaf = try MessageID.fetchOne(
                db.cachedStatement(sql: "SELECT current_leaf_id FROM conversations WHERE id = ?"),
                arguments: [conversationID])
            return .ask(parent: leaf)
        case .currentLeaf:
            let leaf = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT m.id, m.role, m.parent_id FROM conversations c JOIN messages m ON m.id = c.current_leaf_id
                        WHERE c.id = ?
                        """), arguments: [conversationID])
            // No question: answer the current leaf's question again.
            guard let leaf else { throw StoreError.notFound }
            let question: MessageID? = leaf[1] == MessageRole.user.rawValue ? leaf[0] : leaf[2]
            guard let question, try isQuestion(db, question, conversationID: conversationID) else {
                throw StoreError.notFound
            }
            return .answer(question)
        case .newVersion(let id):
            guard asking,
                let row = try Row.fetchOne(
                    db.cachedStatement(
                        sql: "SELECT parent_id FROM messages WHERE id = ? AND conversation_id = ? AND role = 'user'"),
                    arguments: [id, conversationID])
            else { throw StoreError.notFound }
            return .ask(parent: row[0])
        case .reply(let id):
            guard !asking, try isQuestion(db, id, conversationID: conversationID) else { throw StoreError.notFound }
            return .answer(id)
        }
    }

    /// What a reply to `question` answers: the branch from the root down to it, oldest first, with only the columns
    /// its request needs. The conversation's messages up to the question are read newest first in one range scan (as
    /// many rows as before conversations were trees); only those on the path are decoded, and the scan stops at the
    /// root.
    func history(_ db: Database, conversationID: ConversationID, through question: MessageID) throws
        -> [HistoryMessage]
    {
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT id, role, content, parent_id FROM messages WHERE conversation_id = ? AND id <= ?
                    ORDER BY id DESC
                    """), arguments: [conversationID, question])
        var messages: [HistoryMessage] = []
        var wanted: MessageID? = question
        while let next = wanted, let row = try rows.next() {
            guard row[0] as MessageID == next else { continue }
            messages.append(HistoryMessage(row: row))
            wanted = row[3]
        }
        messages.reverse()
        try AttachmentRows.attach(db, to: &messages, of: conversationID)
        try DocumentRows.attach(db, to: &messages, of: conversationID)
        return messages
    }

    /// `id` and every message under it in the conversation, or nil when `id` is not one of its messages. Read from
    /// the conversation's (id, parent) pairs: choosing and deleting are rare, so no index on parents is kept up on
    /// every send for them.
    private static func subtree(_ db: Database, of id: MessageID, conversationID: ConversationID) throws
        -> [MessageID]?
    {
        var children: [MessageID?: [MessageID]] = [:]
        var found = false
        let rows = try Row.fetchCursor(
            db.cachedStatement(sql: "SELECT id, parent_id FROM messages WHERE conversation_id = ? ORDER BY id"),
            arguments: [conversationID])
        while let row = try rows.next() {
            let child: MessageID = row[0]
            found = found || child == id
            children[row[1] as MessageID?, default: []].append(child)
        }
        return found ? ConversationTree.subtree(of: id, children: children) : nil
    }

    private static func isQuestion(_ db: Database, _ id: MessageID, conversationID: ConversationID) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT 1 FROM messages WHERE id = ? AND conversation_id = ? AND role = 'user'"),
            arguments: [id, conversationID]) == true
    }
}
