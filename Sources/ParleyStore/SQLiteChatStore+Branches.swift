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
                let tree = ConversationTree(
                    try conversationMessages(db, conversationID: conversationID, afterID: nil, limit: nil))
                let selected =
                    switch branch {
                    case .current: tree.branch(endingAt: conversation.currentLeafID)
                    case .all: tree.allWithVersions
                    }
                let after = selected.drop { $0.id <= afterID ?? 0 }
                return Page(items: Array(after.prefix(limit)), hasMore: after.count > limit)
            }
        }
    }

    public func selectBranch(conversationID: ConversationID, userID: UserID, messageID: MessageID)
        async throws(StoreError) -> MessageID
    {
        try await perform {
            try await writer.write { db in
                guard try ownedConversation(db, id: conversationID, userID: userID) != nil,
                    let leaf = try Self.latestLeaf(db, under: messageID, conversationID: conversationID)
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
                        arguments: [messageID, conversationID])
                else { throw StoreError.notFound }
                let parentID: MessageID? = parent[0]
                let subtree = try MessageID.fetchSet(
                    db.cachedStatement(sql: "\(Self.subtree) SELECT id FROM under"), arguments: [messageID])
                try db.cachedStatement(sql: "\(Self.subtree) DELETE FROM messages WHERE id IN (SELECT id FROM under)")
                    .execute(arguments: [messageID])
                guard let leaf = conversation.currentLeafID, subtree.contains(leaf) else { return }
                let newLeaf =
                    try parentID.flatMap { try Self.latestLeaf(db, under: $0, conversationID: conversationID) }
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
    /// its request needs. Each step up is one primary-key lookup that reads the message and its parent together; the
    /// steps come newest first and are turned around here rather than sorted by SQLite.
    func history(_ db: Database, conversationID: ConversationID, through question: MessageID) throws
        -> [HistoryMessage]
    {
        var messages = try Array(
            Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        WITH RECURSIVE path(id, role, content, parent) AS (
                            SELECT id, role, content, parent_id FROM messages WHERE id = ? UNION ALL
                            SELECT m.id, m.role, m.content, m.parent_id FROM messages m JOIN path ON m.id = path.parent)
                        SELECT id, role, content FROM path
                        """), arguments: [question]
            ).map(HistoryMessage.init(row:)))
        messages.reverse()
        try AttachmentRows.attach(db, to: &messages, of: conversationID)
        return messages
    }

    /// The ids under the message bound first (itself included), as a `WITH` clause naming them `under`.
    private static let subtree = """
        WITH RECURSIVE under(id) AS (
            SELECT ? UNION ALL SELECT m.id FROM messages m JOIN under ON m.parent_id = under.id)
        """

    /// The newest message under `id` in the conversation (a leaf), or nil when `id` is not one of its messages.
    private static func latestLeaf(_ db: Database, under id: MessageID, conversationID: ConversationID) throws
        -> MessageID?
    {
        guard
            try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT 1 FROM messages WHERE id = ? AND conversation_id = ?"),
                arguments: [id, conversationID]) == true
        else { return nil }
        return try MessageID.fetchOne(
            db.cachedStatement(sql: "\(subtree) SELECT MAX(id) FROM under"), arguments: [id])
    }

    private static func isQuestion(_ db: Database, _ id: MessageID, conversationID: ConversationID) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT 1 FROM messages WHERE id = ? AND conversation_id = ? AND role = 'user'"),
            arguments: [id, conversationID]) == true
    }
}
