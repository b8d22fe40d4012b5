import Foundation
import ParleyCore
import PostgresNIO

/// Where an exchange's reply goes: after a new question under `parent`, or as another answer to an existing question.
enum PostgresExchangePlace {
    case ask(parent: MessageID?)
    case answer(MessageID)
}

/// A conversation as a tree in PostgreSQL: the branch it shows, choosing another, deleting a subtree, and a reply's
/// history.
extension PostgresChatStore {
    public func messages(
        conversationID: ConversationID, userID: UserID, branch: BranchSelection, afterID: MessageID?, limit: Int
    ) async throws(StoreError) -> Page<Message> {
        try await perform {
            try await client.withConnection { connection in
                guard
                    let conversation = try await connection.query(
                        "SELECT * FROM conversations WHERE id = \(conversationID) AND user_id = \(userID)",
                        logger: logger
                    ).rows().first.map(Conversation.init(row:))
                else { throw StoreError.notFound }
                var messages = try await connection.query(
                    """
                    SELECT \(unescaped: Message.postgresColumns()) FROM messages
                    WHERE conversation_id = \(conversationID) ORDER BY id
                    """, logger: logger
                ).rows().map(Message.init(row:))
                try await attachFiles(to: &messages, on: connection)
                return ConversationTree(messages).page(
                    branch, leaf: conversation.currentLeafID, afterID: afterID, limit: limit)
            }
        }
    }

    public func selectBranch(conversationID: ConversationID, userID: UserID, messageID: MessageID)
        async throws(StoreError) -> MessageID
    {
        try await perform {
            try await client.withTransaction(logger: logger) { connection in
                guard try await ownsConversation(conversationID, userID: userID, lock: true, connection),
                    let leaf = try await subtree(of: messageID, conversationID: conversationID, connection)?.max()
                else { throw StoreError.notFound }
                try await connection.query(
                    "UPDATE conversations SET current_leaf_id = \(leaf) WHERE id = \(conversationID)", logger: logger)
                return leaf
            }
        }
    }

    public func deleteMessage(conversationID: ConversationID, userID: UserID, messageID: MessageID)
        async throws(StoreError)
    {
        try await perform {
            try await client.withTransaction(logger: logger) { connection in
                guard try await ownsConversation(conversationID, userID: userID, lock: true, connection),
                    let row = try await connection.query(
                        """
                        SELECT parent_id, (SELECT current_leaf_id FROM conversations WHERE id = \(conversationID))
                            AS leaf
                        FROM messages WHERE id = \(messageID) AND conversation_id = \(conversationID)
                        """, logger: logger
                    ).rows().first,
                    let doomed = try await subtree(of: messageID, conversationID: conversationID, connection)
                else { throw StoreError.notFound }
                let parentID = try row["parent_id"].decode(Int64?.self)
                let leaf = try row["leaf"].decode(Int64?.self)
                try await connection.query("DELETE FROM messages WHERE id = ANY(\(doomed))", logger: logger)
                guard let leaf, doomed.contains(leaf) else { return }
                var newLeaf: MessageID?
                if let parentID {
                    newLeaf = try await subtree(of: parentID, conversationID: conversationID, connection)?.max()
                } else {
                    newLeaf = try await connection.query(
                        "SELECT MAX(id) FROM messages WHERE conversation_id = \(conversationID)", logger: logger
                    ).collect().first?.decode(Int64?.self)
                }
                try await connection.query(
                    "UPDATE conversations SET current_leaf_id = \(newLeaf) WHERE id = \(conversationID)",
                    logger: logger)
            }
        }
    }

    /// Where an exchange anchored at `anchor` goes; `.notFound` when the anchor is not a user message of the
    /// conversation (or, with no question `asking`, when there is nothing to answer).
    func place(
        _ anchor: ExchangeAnchor, conversationID: ConversationID, currentLeaf: MessageID?, asking: Bool,
        _ connection: PostgresConnection
    ) async throws -> PostgresExchangePlace {
        switch anchor {
        case .currentLeaf where asking:
            return .ask(parent: currentLeaf)
        case .currentLeaf:
            // No question: answer the current leaf's question again.
            guard
                let leaf = try await connection.query(
                    """
                    SELECT m.id, m.role, m.parent_id FROM conversations c JOIN messages m ON m.id = c.current_leaf_id
                    WHERE c.id = \(conversationID)
                    """, logger: logger
                ).rows().first
            else { throw StoreError.notFound }
            let question =
                try leaf["role"].decode(String.self) == MessageRole.user.rawValue
                ? try leaf["id"].decode(Int64?.self) : try leaf["parent_id"].decode(Int64?.self)
            guard let question, try await isQuestion(question, conversationID: conversationID, connection) else {
                throw StoreError.notFound
            }
            return .answer(question)
        case .newVersion(let id):
            guard asking,
                let row = try await connection.query(
                    """
                    SELECT parent_id FROM messages WHERE id = \(id) AND conversation_id = \(conversationID)
                    AND role = 'user'
                    """, logger: logger
                ).rows().first
            else { throw StoreError.notFound }
            return .ask(parent: try row["parent_id"].decode(Int64?.self))
        case .reply(let id):
            guard !asking, try await isQuestion(id, conversationID: conversationID, connection) else {
                throw StoreError.notFound
            }
            return .answer(id)
        }
    }

    /// What a reply to `question` answers: the branch from the root down to it, oldest first, with its attachments
    /// and read documents (looked for only when the conversation `hasFiles`).
    func history(
        conversationID: ConversationID, through question: MessageID, hasFiles: Bool, on connection: PostgresConnection
    ) async throws -> [HistoryMessage] {
        let rows = try await connection.query(
            """
            SELECT id, role, content, parent_id FROM messages
            WHERE conversation_id = \(conversationID) AND id <= \(question) ORDER BY id DESC
            """, logger: logger
        ).collect()
        var messages: [HistoryMessage] = []
        var wanted: MessageID? = question
        for row in rows {
            guard let next = wanted else { break }
            let (id, role, content, parent) = try row.decode((Int64, String, String, Int64?).self)
            guard id == next else { continue }
            messages.append(HistoryMessage(id: id, role: MessageRole(rawValue: role) ?? .user, content: content))
            wanted = parent
        }
        messages.reverse()
        guard hasFiles, let first = messages.first, let last = messages.last else { return messages }
        let attachments = try await PostgresAttachmentRows.byMessage(
            between: first.id, and: last.id, of: conversationID, on: connection, logger: logger)
        let documents = try await PostgresDocumentRows.byMessage(
            between: first.id, and: last.id, of: conversationID, on: connection, logger: logger)
        for index in messages.indices {
            messages[index].attachments = attachments[messages[index].id] ?? []
            messages[index].documentIDs = (documents[messages[index].id] ?? []).filter { $0.status == .ready }.map(\.id)
        }
        return messages
    }

    /// Whether the conversation is the user's, its row locked for the transaction when `lock`.
    private func ownsConversation(
        _ id: ConversationID, userID: UserID, lock: Bool, _ connection: PostgresConnection
    ) async throws -> Bool {
        try await !connection.query(
            """
            SELECT 1 FROM conversations WHERE id = \(id) AND user_id = \(userID) \(unescaped: lock ? "FOR UPDATE" : "")
            """, logger: logger
        ).rows().isEmpty
    }

    /// `id` and every message under it in the conversation, or nil when `id` is not one of its messages.
    private func subtree(of id: MessageID, conversationID: ConversationID, _ connection: PostgresConnection)
        async throws -> [MessageID]?
    {
        var children: [MessageID?: [MessageID]] = [:]
        var found = false
        for row in try await connection.query(
            "SELECT id, parent_id FROM messages WHERE conversation_id = \(conversationID) ORDER BY id", logger: logger
        ).collect() {
            let (child, parent) = try row.decode((Int64, Int64?).self)
            found = found || child == id
            children[parent, default: []].append(child)
        }
        return found ? ConversationTree.subtree(of: id, children: children) : nil
    }

    /// Whether `id` is a user message of the conversation.
    private func isQuestion(_ id: MessageID, conversationID: ConversationID, _ connection: PostgresConnection)
        async throws -> Bool
    {
        try await !connection.query(
            "SELECT 1 FROM messages WHERE id = \(id) AND conversation_id = \(conversationID) AND role = 'user'",
            logger: logger
        ).rows().isEmpty
    }
}
