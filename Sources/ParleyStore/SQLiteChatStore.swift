import Foundation
import GRDB
import ParleyCore

/// Conversations and messages in SQLite; every query is scoped by the owner.
public struct SQLiteChatStore: ChatStore {
    let pool: DatabasePool
    let writer: GroupCommitWriter

    /// Creates the store over an open database.
    public init(database: ParleyDatabase) {
        pool = database.pool
        writer = database.writer
    }

    public func createConversation(
        userID: UserID, title: String, model: String, systemPrompt: String, options: GenerationOptions,
        assistant: AssistantReference?
    ) async throws(StoreError) -> Conversation {
        try await perform {
            try await writer.write { db in
                let now = StoredDate.now
                try db.cachedStatement(
                    sql: """
                        INSERT INTO conversations (user_id, title, model, system_prompt, generation_settings, created_at,
                                                   updated_at, assistant_id, assistant_name, assistant_version)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """
                ).execute(arguments: [
                    userID, title, model, systemPrompt, options.storedJSON, now, now, assistant?.id, assistant?.name,
                    assistant?.version,
                ])
                return Conversation(
                    id: db.lastInsertedRowID, userID: userID, title: title, model: model,
                    systemPrompt: systemPrompt, createdAt: now.date, updatedAt: now.date, options: options,
                    assistant: assistant)
            }
        }
    }

    public func conversation(id: ConversationID, userID: UserID) async throws(StoreError) -> Conversation? {
        try await perform { try pool.lookup { db in try ownedConversation(db, id: id, userID: userID) } }
    }

    public func conversations(userID: UserID, before: ConversationID?, limit: Int, archived: Bool)
        async throws(StoreError) -> Page<Conversation>
    {
        try await perform {
            try pool.lookup { db in
                let rows: [Row]
                if let before {
                    rows = try Row.fetchAll(
                        db.cachedStatement(
                            sql: """
                                SELECT c.* FROM conversations c, conversations cursor
                                WHERE cursor.id = ? AND cursor.user_id = ? AND c.user_id = ? AND c.archived = ?
                                  AND (c.pinned, c.updated_at, c.id) < (cursor.pinned, cursor.updated_at, cursor.id)
                                ORDER BY c.pinned DESC, c.updated_at DESC, c.id DESC LIMIT ?
                                """), arguments: [before, userID, userID, archived, limit + 1])
                } else {
                    rows = try Row.fetchAll(
                        db.cachedStatement(
                            sql: """
                                SELECT * FROM conversations WHERE user_id = ? AND archived = ?
                                ORDER BY pinned DESC, updated_at DESC, id DESC LIMIT ?
                                """), arguments: [userID, archived, limit + 1])
                }
                return page(rows, limit: limit, Conversation.init(row:))
            }
        }
    }

    public func renameConversation(id: ConversationID, userID: UserID, title: String) async throws(StoreError) {
        try await updateOwned(
            id: id, userID: userID, sql: "UPDATE conversations SET title = ? WHERE id = ? AND user_id = ?",
            arguments: [title, id, userID])
    }

    public func retitleConversation(id: ConversationID, userID: UserID, from current: String, to title: String)
        async throws(StoreError) -> Bool
    {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(
                    sql: "UPDATE conversations SET title = ? WHERE id = ? AND user_id = ? AND title = ?"
                ).execute(arguments: [title, id, userID, current])
                return db.changesCount == 1
            }
        }
    }

    public func configureConversation(
        id: ConversationID, userID: UserID, model: String, systemPrompt: String, options: GenerationOptions
    ) async throws(StoreError) {
        try await updateOwned(
            id: id, userID: userID,
            sql: """
                UPDATE conversations SET model = ?, system_prompt = ?, generation_settings = ? WHERE id = ? AND user_id = ?
                """,
            arguments: [model, systemPrompt, options.storedJSON, id, userID])
    }

    public func setToolServers(_ servers: [String]?, conversationID: ConversationID, userID: UserID)
        async throws(StoreError)
    {
        let stored = servers.map { String(decoding: (try? JSONEncoder().encode($0)) ?? Data("[]".utf8), as: UTF8.self) }
        try await updateOwned(
            id: conversationID, userID: userID,
            sql: "UPDATE conversations SET tool_servers = ? WHERE id = ? AND user_id = ?",
            arguments: [stored, conversationID, userID])
    }

    public func deleteConversation(id: ConversationID, userID: UserID) async throws(StoreError) {
        try await updateOwned(
            id: id, userID: userID, sql: "DELETE FROM conversations WHERE id = ? AND user_id = ?",
            arguments: [id, userID])
    }

    public func setPinned(_ pinned: Bool, id: ConversationID, userID: UserID) async throws(StoreError) {
        try await updateOwned(
            id: id, userID: userID, sql: "UPDATE conversations SET pinned = ? WHERE id = ? AND user_id = ?",
            arguments: [pinned, id, userID])
    }

    public func setArchived(_ archived: Bool, id: ConversationID, userID: UserID) async throws(StoreError) {
        try await updateOwned(
            id: id, userID: userID, sql: "UPDATE conversations SET archived = ? WHERE id = ? AND user_id = ?",
            arguments: [archived, id, userID])
    }

    public func message(id: MessageID, userID: UserID) async throws(StoreError) -> Message? {
        try await perform {
            try pool.lookup { db in
                var messages = try Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT \(Message.columns(of: "m")) FROM messages m JOIN conversations c ON c.id = m.conversation_id
                            WHERE m.id = ? AND c.user_id = ?
                            """), arguments: [id, userID]
                ).map(Message.init(row:))
                if let message = messages.first {
                    try AttachmentRows.attach(db, to: &messages, of: message.conversationID)
                    try DocumentRows.attach(db, to: &messages, of: message.conversationID)
                }
                return messages.first
            }
        }
    }

    public func exchange(conversationID: ConversationID, requestID: String) async throws(StoreError) -> Exchange? {
        try await perform {
            try pool.lookup { db in try exchange(db, conversationID: conversationID, requestID: requestID) }
        }
    }

    public func beginExchange(
        conversationID: ConversationID, userContent: String?, images: [NewImage], documents: [DocumentID],
        requestID: String?, model: String, anchor: ExchangeAnchor
    ) async throws(StoreError) -> Exchange {
        try await perform {
            try await writer.write { db in
                let now = StoredDate.now
                var userMessage: Message?
                var question: MessageID
                let place = try Self.place(db, anchor, conversationID: conversationID, asking: userContent != nil)
                switch place {
                case .answer(let id):
                    question = id
                case .ask(let parentID):
                    guard let userContent else { throw StoreError.notFound }
                    // Held out of the search index until the reply ends, then indexed with it (one FTS5 segment).
                    try db.cachedStatement(
                        sql: """
                            INSERT INTO messages (conversation_id, role, content, status, model, request_id, parent_id, created_at, updated_at, search_held)
                            VALUES (?, 'user', ?, 'complete', ?, ?, ?, ?, ?, 1)
                            """
                    ).execute(arguments: [conversationID, userContent, model, requestID, parentID, now, now])
                    question = db.lastInsertedRowID
                    let attachments = try AttachmentRows.insert(
                        db, images: images, messageID: question, conversationID: conversationID, now: now.date)
                    try DocumentRows.send(db, documents, messageID: question, conversationID: conversationID)
                    userMessage = Message(
                        id: question, conversationID: conversationID, role: .user, content: userContent,
                        status: .complete, model: model, requestID: requestID, parentID: parentID,
                        createdAt: now.date, attachments: attachments)
                }
                // After the question, so that a repeated request id is refused as such (`duplicate`) even past the
                // budget, and so that the question and its images count against the storage quota.
                try BudgetLedger.enforce(db, conversationID: conversationID, today: UsageDay(now.date))
                try StorageLedger.enforce(db, conversationID: conversationID)
                let history = try history(db, conversationID: conversationID, through: question)
                try db.cachedStatement(
                    sql: """
                        INSERT INTO messages (conversation_id, role, content, status, model, parent_id, created_at, updated_at)
                        VALUES (?, 'assistant', '', 'streaming', ?, ?, ?, ?)
                        """
                ).execute(arguments: [conversationID, model, question, now, now])
                let assistant = Message(
                    id: db.lastInsertedRowID, conversationID: conversationID, role: .assistant,
                    content: "", status: .streaming, model: model, parentID: question, createdAt: now.date)
                try db.cachedStatement(
                    sql: "UPDATE conversations SET updated_at = ?, model = ?, current_leaf_id = ? WHERE id = ?"
                ).execute(arguments: [now, model, assistant.id, conversationID])
                return Exchange(userMessage: userMessage, assistantMessage: assistant, history: history)
            }
        }
    }

    /// The most replies one transaction of `saveProgress` saves: 500 replies' text held the writer for 6–10 ms in one
    /// transaction, and a send's first write waited behind it.
    static let progressSlice = 50

    public func saveProgress(_ progress: [MessageID: ReplyProgress]) async throws(StoreError) {
        let now = StoredDate.now
        let replies = Array(progress)
        // One write a slice, each awaited before the next is submitted, so that the writes queued meanwhile (a send's
        // messages) go in between instead of joining one long transaction.
        for start in stride(from: replies.startIndex, to: replies.endIndex, by: Self.progressSlice) {
            let slice = replies[start..<min(start + Self.progressSlice, replies.endIndex)]
            try await perform {
                try await writer.write { db in
                    let statement = try db.cachedStatement(
                        sql: """
                            UPDATE messages SET content = ?, reasoning = ?, updated_at = ? WHERE id = ? AND status = 'streaming'
                            """)
                    for (id, reply) in slice {
                        try statement.execute(arguments: [reply.content, reply.reasoning, now, id])
                    }
                }
            }
        }
    }

    public func saveToolSteps(_ steps: [ToolStep], messageID: MessageID) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(
                    sql: "UPDATE messages SET tool_steps = ? WHERE id = ? AND status = 'streaming'"
                ).execute(arguments: [StoredJSONList.json(steps), messageID])
            }
        }
    }

    @discardableResult
    public func finishReply(id: MessageID, outcome: ReplyOutcome) async throws(StoreError) -> Usage {
        try await perform {
            try await writer.write { db in
                let now = StoredDate.now
                let (usage, priceID) = try PriceVersions.charge(outcome, db, at: now.date)
                try db.cachedStatement(
                    sql: """
                        UPDATE messages SET content = ?, reasoning = ?, reasoning_ms = ?, status = ?, model = COALESCE(?, model), provider = ?,
                            prompt_tokens = ?, cached_prompt_tokens = ?, completion_tokens = ?, reasoning_tokens = ?,
                            cost_micros = ?, usage_estimated = ?, price_version_id = ?, error_code = ?, error_message = ?,
                            updated_at = ?, sources = ?, document_tokens = ?, tool_steps = ?
                        WHERE id = ?
                        """
                ).execute(arguments: [
                    outcome.content, outcome.reasoning, outcome.reasoningMilliseconds, outcome.status.rawValue,
                    outcome.pricing?.modelID,
                    outcome.pricing?.providerID, usage.promptTokens, usage.cachedPromptTokens, usage.completionTokens,
                    usage.reasoningTokens, usage.costMicros, usage.estimated, priceID, outcome.failure?.code,
                    outcome.failure?.message, now, StoredJSONList.json(outcome.sources),
                    outcome.documentTokens, StoredJSONList.json(outcome.toolSteps), id,
                ])
                try indexHeldQuestions(db, ofRepliesWhere: "id = ?", arguments: [id])
                try db.cachedStatement(
                    sql: """
                        UPDATE conversations SET updated_at = ? WHERE id = (SELECT conversation_id FROM messages WHERE id = ?)
                        """
                ).execute(arguments: [now, id])
                if let pricing = outcome.pricing {
                    try UsageRollup.add(
                        db, replyID: id, model: pricing.modelID, usage: usage, documentTokens: outcome.documentTokens,
                        day: UsageDay(now.date))
                }
                return usage
            }
        }
    }

    @discardableResult
    public func chargeTitle(conversationID: ConversationID, usage: Usage, pricing: ReplyPricing)
        async throws(StoreError) -> Usage
    {
        try await perform {
            try await writer.write { db in
                let now = StoredDate.now
                var usage = usage
                _ = try PriceVersions.charge(&usage, db, pricing: pricing, at: now.date)
                try db.cachedStatement(
                    sql: "UPDATE conversations SET title_cost_micros = title_cost_micros + ? WHERE id = ?"
                )
                .execute(arguments: [usage.costMicros, conversationID])
                try UsageRollup.addTitle(
                    db, conversationID: conversationID, model: pricing.modelID, usage: usage, day: UsageDay(now.date))
                return usage
            }
        }
    }

    public func interruptUnfinishedReplies() async throws(StoreError) -> Int {
        try await perform {
            try await writer.write { db in
                try indexHeldQuestions(db, ofRepliesWhere: "status = 'streaming'", arguments: [])
                try db.cachedStatement(sql: "UPDATE messages SET status = 'interrupted' WHERE status = 'streaming'")
                    .execute()
                let replies = db.changesCount
                try db.cachedStatement(
                    sql: "UPDATE api_completions SET status = 'interrupted' WHERE status = 'streaming'"
                ).execute()
                return replies
            }
        }
    }

    /// Lets the search index take the questions of the replies that `condition` selects (held out of it since they
    /// were written, until their replies end); the index's triggers add them in the caller's transaction.
    private func indexHeldQuestions(_ db: Database, ofRepliesWhere condition: String, arguments: StatementArguments)
        throws
    {
        try db.cachedStatement(
            sql: """
                UPDATE messages SET search_held = 0 WHERE search_held AND id IN (SELECT parent_id FROM messages WHERE \(condition))
                """
        ).execute(arguments: arguments)
    }

    func ownedConversation(_ db: Database, id: ConversationID, userID: UserID) throws -> Conversation? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM conversations WHERE id = ? AND user_id = ?"),
            arguments: [id, userID]
        )
        .map(Conversation.init(row:))
    }

    /// A conversation's messages with their attachments, oldest first: those after `afterID`, at most `limit` of them.
    /// Each is decoded from the statement as it steps (a cursor): copying every row first, as `fetchAll` does, took
    /// twice as long.
    func conversationMessages(_ db: Database, conversationID: ConversationID, afterID: MessageID?, limit: Int?)
        throws -> [Message]
    {
        var messages = try Array(
            Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT \(Message.columns()) FROM messages WHERE conversation_id = ? AND id > ? ORDER BY id LIMIT ?
                        """), arguments: [conversationID, afterID ?? 0, limit ?? -1]
            ).map(Message.init(row:)))
        try AttachmentRows.attach(db, to: &messages, of: conversationID)
        try DocumentRows.attach(db, to: &messages, of: conversationID)
        return messages
    }

    private func exchange(_ db: Database, conversationID: ConversationID, requestID: String) throws -> Exchange? {
        guard
            let user = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT \(Message.columns()) FROM messages WHERE conversation_id = ? AND request_id = ?
                        """), arguments: [conversationID, requestID]
            ).map(Message.init(row:))
        else { return nil }
        guard
            let assistant = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT \(Message.columns()) FROM messages WHERE parent_id = ? AND role = 'assistant' ORDER BY id DESC LIMIT 1
                        """), arguments: [user.id]
            ).map(Message.init(row:))
        else { return nil }
        return Exchange(userMessage: user, assistantMessage: assistant)
    }

    private func updateOwned(id: ConversationID, userID: UserID, sql: String, arguments: StatementArguments)
        async throws(StoreError)
    {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(sql: sql).execute(arguments: arguments)
                if db.changesCount == 0 { throw StoreError.notFound }
            }
        }
    }
}
