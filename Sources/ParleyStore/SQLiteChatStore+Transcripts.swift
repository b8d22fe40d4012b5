import Foundation
import GRDB
import ParleyCore

/// Whole conversations in and out: the owner's transcripts for export, and imports written in one transaction.
extension SQLiteChatStore {
    public func transcripts(userID: UserID, conversationID: ConversationID?) async throws(StoreError)
        -> [ConversationTranscript]
    {
        try await perform {
            try await pool.scan { db in
                let only = conversationID == nil ? "" : " AND c.id = ?"
                var arguments: StatementArguments = [userID]
                if let conversationID { arguments += [conversationID] }
                let conversations = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT c.* FROM conversations c WHERE c.user_id = ?\(only) ORDER BY c.id
                        """, arguments: arguments
                ).map(Conversation.init(row:))
                let messages = try Array(
                    Row.fetchCursor(
                        db,
                        sql: """
                            SELECT \(Message.columns(of: "m")) FROM messages m JOIN conversations c ON c.id = m.conversation_id
                            WHERE c.user_id = ?\(only) ORDER BY m.id
                            """, arguments: arguments
                    ).map(Message.init(row:)))
                let byConversation = Dictionary(grouping: messages, by: \.conversationID)
                return conversations.map {
                    ConversationTranscript(
                        conversation: $0, messages: ConversationTree(byConversation[$0.id] ?? []).allWithVersions)
                }
            }
        }
    }

    public func importTranscripts(_ transcripts: [ConversationTranscript], userID: UserID) async throws(StoreError)
        -> [Conversation]
    {
        try await perform {
            try await writer.write { db in
                let conversations = try transcripts.map { try insert($0, userID: userID, db) }
                try StorageLedger.enforce(db, userID: userID)
                return conversations
            }
        }
    }

    /// Inserts one transcript as a new conversation of the user. A transcript with a current leaf is a tree: each
    /// message goes under its parent (by the transcript's own ids, when the parent came before it), and that leaf
    /// becomes current. Without one, it is one branch: each message follows the one before, and the last is current.
    private func insert(_ transcript: ConversationTranscript, userID: UserID, _ db: Database) throws -> Conversation {
        var conversation = transcript.conversation
        try db.cachedStatement(
            sql: """
                INSERT INTO conversations (user_id, title, model, system_prompt, created_at, updated_at, pinned, archived,
                                           generation_settings)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            userID, conversation.title, conversation.model, conversation.systemPrompt, conversation.createdAt,
            conversation.updatedAt, conversation.pinned, conversation.archived, conversation.options.storedJSON,
        ])
        conversation.id = db.lastInsertedRowID
        conversation.userID = userID
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO messages (conversation_id, role, content, reasoning, reasoning_ms, status, model, parent_id,
                                      prompt_tokens, completion_tokens, reasoning_tokens, cost_micros, usage_estimated,
                                      created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        let isTree = conversation.currentLeafID != nil
        var newIDs: [MessageID: MessageID] = [:]
        var previous: MessageID?
        for message in transcript.messages {
            let parent = isTree ? message.parentID.flatMap { newIDs[$0] } : previous
            try statement.execute(arguments: [
                conversation.id, message.role.rawValue, message.content, message.reasoning,
                message.reasoningMilliseconds, message.status.rawValue, message.model, parent,
                message.usage.promptTokens, message.usage.completionTokens, message.usage.reasoningTokens,
                message.usage.costMicros, message.usage.estimated, message.createdAt, message.createdAt,
            ])
            previous = db.lastInsertedRowID
            newIDs[message.id] = previous
        }
        conversation.currentLeafID = conversation.currentLeafID.flatMap { newIDs[$0] } ?? previous
        try db.cachedStatement(sql: "UPDATE conversations SET current_leaf_id = ? WHERE id = ?")
            .execute(arguments: [conversation.currentLeafID, conversation.id])
        return conversation
    }
}
