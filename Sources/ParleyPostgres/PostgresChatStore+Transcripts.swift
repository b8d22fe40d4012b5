import Foundation
import ParleyCore
import PostgresNIO

/// Whole conversations in and out of PostgreSQL: the owner's transcripts for export, and imports written in one
/// transaction.
extension PostgresChatStore {
    public func transcripts(userID: UserID, conversationID: ConversationID?) async throws(StoreError)
        -> [ConversationTranscript]
    {
        try await perform {
            try await client.withConnection { connection in
                let conversations = try await connection.query(
                    """
                    SELECT * FROM conversations WHERE user_id = \(userID)
                    AND (\(conversationID)::bigint IS NULL OR id = \(conversationID)) ORDER BY id
                    """, logger: logger
                ).rows().map(Conversation.init(row:))
                let messages = try await connection.query(
                    """
                    SELECT \(unescaped: Message.postgresColumns(of: "m")) FROM messages m
                    JOIN conversations c ON c.id = m.conversation_id
                    WHERE c.user_id = \(userID) AND (\(conversationID)::bigint IS NULL OR c.id = \(conversationID))
                    ORDER BY m.id
                    """, logger: logger
                ).rows().map(Message.init(row:))
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
            try await client.withTransaction(logger: logger) { connection in
                var conversations: [Conversation] = []
                for transcript in transcripts {
                    conversations.append(try await insert(transcript, userID: userID, on: connection))
                }
                try await PostgresStorageQuota.enforce(userID: userID, on: connection, logger: logger)
                return conversations
            }
        }
    }

    /// Inserts one transcript as a new conversation of the user. A transcript with a current leaf is a tree: each
    /// message goes under its parent (by the transcript's own ids, when the parent came before it), and that leaf
    /// becomes current. Without one, it is one branch: each message follows the one before, and the last is current.
    private func insert(_ transcript: ConversationTranscript, userID: UserID, on connection: PostgresConnection)
        async throws -> Conversation
    {
        var conversation = transcript.conversation
        let created = StoredMoment.rounded(conversation.createdAt)
        let updated = StoredMoment.rounded(conversation.updatedAt)
        conversation.id =
            try await connection.query(
                """
                INSERT INTO conversations (user_id, title, model, system_prompt, created_at, updated_at, pinned, archived,
                    generation_settings)
                VALUES (\(userID), \(conversation.title), \(conversation.model), \(conversation.systemPrompt),
                    \(created), \(updated), \(conversation.pinned), \(conversation.archived),
                    \(conversation.options.storedJSON))
                RETURNING id
                """, logger: logger
            ).rows().first?["id"].decode(Int64.self) ?? 0
        conversation.userID = userID
        let isTree = conversation.currentLeafID != nil
        var newIDs: [MessageID: MessageID] = [:]
        var previous: MessageID?
        for message in transcript.messages {
            let parent = isTree ? message.parentID.flatMap { newIDs[$0] } : previous
            let moment = StoredMoment.rounded(message.createdAt)
            previous =
                try await connection.query(
                    """
                    INSERT INTO messages (conversation_id, role, content, reasoning, reasoning_ms, status, model,
                        parent_id, prompt_tokens, completion_tokens, reasoning_tokens, cost_micros, usage_estimated,
                        created_at, updated_at)
                    VALUES (\(conversation.id), \(message.role.rawValue), \(message.content), \(message.reasoning),
                        \(message.reasoningMilliseconds), \(message.status.rawValue), \(message.model), \(parent),
                        \(message.usage.promptTokens), \(message.usage.completionTokens),
                        \(message.usage.reasoningTokens), \(message.usage.costMicros), \(message.usage.estimated),
                        \(moment), \(moment))
                    RETURNING id
                    """, logger: logger
                ).rows().first?["id"].decode(Int64.self)
            newIDs[message.id] = previous
        }
        conversation.currentLeafID = conversation.currentLeafID.flatMap { newIDs[$0] } ?? previous
        try await connection.query(
            "UPDATE conversations SET current_leaf_id = \(conversation.currentLeafID) WHERE id = \(conversation.id)",
            logger: logger)
        return conversation
    }
}
