import Foundation
import Logging
import ParleyCore
import PostgresNIO

/// Conversations and messages in PostgreSQL; every query is scoped by the owner.
public struct PostgresChatStore: ChatStore {
    let client: PostgresClient
    let logger: Logger
    /// The instance whose replies' leases this store takes.
    let instanceID: UUID

    /// Creates the store over a database.
    public init(database: PostgresStorage) {
        client = database.client
        logger = database.logger
        instanceID = database.instanceID
    }

    public func createConversation(
        userID: UserID, title: String, model: String, systemPrompt: String, options: GenerationOptions,
        assistant: AssistantReference?
    ) async throws(StoreError) -> Conversation {
        let now = StoredMoment.now
        return try await perform {
            let row = try await client.query(
                """
                INSERT INTO conversations (user_id, title, model, system_prompt, generation_settings, created_at,
                    updated_at, assistant_id, assistant_name, assistant_version)
                VALUES (\(userID), \(title), \(model), \(systemPrompt), \(options.storedJSON), \(now), \(now),
                    \(assistant?.id), \(assistant?.name), \(assistant.map { Int64($0.version) }))
                RETURNING *
                """, logger: logger
            ).rows().first
            guard let row else { throw StoreError.notFound }
            return try Conversation(row: row)
        }
    }

    public func conversation(id: ConversationID, userID: UserID) async throws(StoreError) -> Conversation? {
        try await perform {
            try await client.query(
                "SELECT * FROM conversations WHERE id = \(id) AND user_id = \(userID)", logger: logger
            ).rows().first.map(Conversation.init(row:))
        }
    }

    public func conversations(userID: UserID, before: ConversationID?, limit: Int, archived: Bool)
        async throws(StoreError) -> Page<Conversation>
    {
        try await perform {
            let rows: [PostgresRandomAccessRow]
            if let before {
                rows = try await client.query(
                    """
                    SELECT c.* FROM conversations c, conversations cursor
                    WHERE cursor.id = \(before) AND cursor.user_id = \(userID) AND c.user_id = \(userID)
                      AND c.archived = \(archived)
                      AND (c.pinned, c.updated_at, c.id) < (cursor.pinned, cursor.updated_at, cursor.id)
                    ORDER BY c.pinned DESC, c.updated_at DESC, c.id DESC LIMIT \(limit + 1)
                    """, logger: logger
                ).rows()
            } else {
                rows = try await client.query(
                    """
                    SELECT * FROM conversations WHERE user_id = \(userID) AND archived = \(archived)
                    ORDER BY pinned DESC, updated_at DESC, id DESC LIMIT \(limit + 1)
                    """, logger: logger
                ).rows()
            }
            return try page(rows, limit: limit, Conversation.init(row:))
        }
    }

    public func renameConversation(id: ConversationID, userID: UserID, title: String) async throws(StoreError) {
        try await updateOwned(
            "UPDATE conversations SET title = \(title) WHERE id = \(id) AND user_id = \(userID) RETURNING 1")
    }

    public func retitleConversation(id: ConversationID, userID: UserID, from current: String, to title: String)
        async throws(StoreError) -> Bool
    {
        try await perform {
            try await client.query(
                """
                UPDATE conversations SET title = \(title) WHERE id = \(id) AND user_id = \(userID) AND title = \(current)
                RETURNING 1
                """, logger: logger
            ).rows().count == 1
        }
    }

    public func configureConversation(
        id: ConversationID, userID: UserID, model: String, systemPrompt: String, options: GenerationOptions
    ) async throws(StoreError) {
        try await updateOwned(
            """
            UPDATE conversations SET model = \(model), system_prompt = \(systemPrompt),
                generation_settings = \(options.storedJSON)
            WHERE id = \(id) AND user_id = \(userID) RETURNING 1
            """)
    }

    public func setToolServers(_ servers: [String]?, conversationID: ConversationID, userID: UserID)
        async throws(StoreError)
    {
        let stored = servers.map { String(decoding: (try? JSONEncoder().encode($0)) ?? Data("[]".utf8), as: UTF8.self) }
        try await updateOwned(
            """
            UPDATE conversations SET tool_servers = \(stored) WHERE id = \(conversationID) AND user_id = \(userID)
            RETURNING 1
            """)
    }

    public func deleteConversation(id: ConversationID, userID: UserID) async throws(StoreError) {
        try await updateOwned("DELETE FROM conversations WHERE id = \(id) AND user_id = \(userID) RETURNING 1")
    }

    public func setPinned(_ pinned: Bool, id: ConversationID, userID: UserID) async throws(StoreError) {
        try await updateOwned(
            "UPDATE conversations SET pinned = \(pinned) WHERE id = \(id) AND user_id = \(userID) RETURNING 1")
    }

    public func setArchived(_ archived: Bool, id: ConversationID, userID: UserID) async throws(StoreError) {
        try await updateOwned(
            "UPDATE conversations SET archived = \(archived) WHERE id = \(id) AND user_id = \(userID) RETURNING 1")
    }

    public func message(id: MessageID, userID: UserID) async throws(StoreError) -> Message? {
        try await perform {
            try await client.withConnection { connection in
                let rows = try await connection.query(
                    """
                    SELECT \(unescaped: Message.postgresColumns(of: "m")) FROM messages m
                    JOIN conversations c ON c.id = m.conversation_id WHERE m.id = \(id) AND c.user_id = \(userID)
                    """, logger: logger
                ).rows()
                var messages = try rows.map(Message.init(row:))
                try await attachFiles(to: &messages, on: connection)
                return messages.first
            }
        }
    }

    public func exchange(conversationID: ConversationID, requestID: String) async throws(StoreError) -> Exchange? {
        try await perform {
            try await client.withConnection { connection in
                guard
                    let user = try await connection.query(
                        """
                        SELECT \(unescaped: Message.postgresColumns()) FROM messages
                        WHERE conversation_id = \(conversationID) AND request_id = \(requestID)
                        """, logger: logger
                    ).rows().first.map(Message.init(row:)),
                    let assistant = try await connection.query(
                        """
                        SELECT \(unescaped: Message.postgresColumns()) FROM messages
                        WHERE parent_id = \(user.id) AND role = 'assistant' ORDER BY id DESC LIMIT 1
                        """, logger: logger
                    ).rows().first.map(Message.init(row:))
                else { return nil }
                return Exchange(userMessage: user, assistantMessage: assistant)
            }
        }
    }

    public func beginExchange(
        conversationID: ConversationID, userContent: String?, images: [NewImage], documents: [DocumentID],
        requestID: String?, model: String, anchor: ExchangeAnchor
    ) async throws(StoreError) -> Exchange {
        let now = StoredMoment.now
        return try await perform {
            try await client.withTransaction(logger: logger) { connection in
                guard let start = try await PostgresExchangeStart.lock(conversationID, on: connection, logger: logger)
                else { throw StoreError.notFound }
                var userMessage: Message?
                let question: MessageID
                switch try await place(
                    anchor, conversationID: conversationID, currentLeaf: start.currentLeaf, asking: userContent != nil,
                    connection)
                {
                case .answer(let id):
                    question = id
                case .ask(let parentID):
                    guard let userContent else { throw StoreError.notFound }
                    // Held out of search until the reply ends, then searchable with it.
                    let id =
                        try await connection.query(
                            """
                            INSERT INTO messages (conversation_id, role, content, status, model, request_id, parent_id,
                                created_at, updated_at, search_held)
                            VALUES (\(conversationID), 'user', \(userContent), 'complete', \(model), \(requestID),
                                \(parentID), \(now), \(now), true)
                            RETURNING id
                            """, logger: logger
                        ).rows().first?["id"].decode(Int64.self) ?? 0
                    question = id
                    let attachments = try await PostgresAttachmentRows.insert(
                        images, messageID: id, conversationID: conversationID, on: connection, logger: logger)
                    try await PostgresDocumentRows.send(
                        documents, messageID: id, conversationID: conversationID, on: connection, logger: logger)
                    userMessage = Message(
                        id: id, conversationID: conversationID, role: .user, content: userContent, status: .complete,
                        model: model, requestID: requestID, parentID: parentID, createdAt: now,
                        attachments: attachments)
                }
                // After the question, so that a repeated request id is refused as such (`duplicate`) even while its
                // reply runs or past the budget, and so that the question and its images count against the storage
                // quota (read with the reply's row).
                try await PostgresLeases.free(conversationID, lease: start.leaseLive, on: connection, logger: logger)
                if start.budgetApplies {
                    try await PostgresUsageLedger(connection: connection, logger: logger)
                        .enforceAppliedBudget(userID: start.owner, today: UsageDay(now))
                }
                let history = try await history(
                    conversationID: conversationID, through: question,
                    hasFiles: start.hasFiles || !images.isEmpty || !documents.isEmpty, on: connection)
                // The reply's row, its lease for this instance and the conversation's new leaf, in one statement.
                guard
                    let row = try await connection.query(
                        """
                        WITH reply AS (
                            INSERT INTO messages (conversation_id, role, content, status, model, parent_id, created_at,
                                updated_at)
                            VALUES (\(conversationID), 'assistant', '', 'streaming', \(model), \(question), \(now),
                                \(now))
                            RETURNING id),
                        lease AS (
                            INSERT INTO reply_leases (message_id, conversation_id, instance_id, expires_at)
                            SELECT id, \(conversationID), \(instanceID), now() + \(PostgresLeases.duration)::interval
                            FROM reply),
                        leaf AS (
                            UPDATE conversations SET updated_at = \(now), model = \(model),
                                current_leaf_id = (SELECT id FROM reply)
                            WHERE id = \(conversationID))
                        SELECT reply.id, \(unescaped: PostgresStorageQuota.statusColumns)
                        FROM reply, users u WHERE u.id = \(start.owner)
                        """, logger: logger
                    ).rows().first
                else { throw StoreError.notFound }
                try PostgresStorageQuota.enforce(try StorageStatus(row: row))
                let replyID = try row["id"].decode(Int64.self)
                let assistant = Message(
                    id: replyID, conversationID: conversationID, role: .assistant, content: "", status: .streaming,
                    model: model, parentID: question, createdAt: now)
                return Exchange(userMessage: userMessage, assistantMessage: assistant, history: history)
            }
        }
    }

    public func saveProgress(_ progress: [MessageID: ReplyProgress]) async throws(StoreError) {
        guard !progress.isEmpty else { return }
        let now = StoredMoment.now
        let replies = Array(progress)
        // Every reply's text in one statement, however many replies.
        try await perform {
            try await client.query(
                """
                UPDATE messages m SET content = p.content,
                    reasoning = CASE WHEN p.reasons THEN p.reasoning END, updated_at = \(now)
                FROM unnest(\(replies.map(\.key))::bigint[], \(replies.map(\.value.content))::text[],
                    \(replies.map { $0.value.reasoning ?? "" })::text[],
                    \(replies.map { $0.value.reasoning != nil })::bool[]) AS p(id, content, reasoning, reasons)
                WHERE m.id = p.id AND m.status = 'streaming'
                """, logger: logger)
        }
    }

    public func saveToolSteps(_ steps: [ToolStep], messageID: MessageID) async throws(StoreError) {
        try await perform {
            try await client.query(
                """
                UPDATE messages SET tool_steps = \(StoredJSONList.json(steps))
                WHERE id = \(messageID) AND status = 'streaming'
                """, logger: logger)
        }
    }

    @discardableResult
    public func finishReply(id: MessageID, outcome: ReplyOutcome) async throws(StoreError) -> Usage {
        let now = StoredMoment.now
        return try await perform {
            try await client.withTransaction(logger: logger) { connection in
                let ledger = PostgresUsageLedger(connection: connection, logger: logger)
                let (usage, priceID) = try await ledger.charge(outcome, at: now)
                // The reply, its lease dropped, its question searchable and its conversation's time, in one
                // statement.
                let owner = try await connection.query(
                    """
                    WITH reply AS (
                        UPDATE messages SET content = \(outcome.content), reasoning = \(outcome.reasoning),
                            reasoning_ms = \(outcome.reasoningMilliseconds), status = \(outcome.status.rawValue),
                            model = COALESCE(\(outcome.pricing?.modelID), model),
                            provider = \(outcome.pricing?.providerID), prompt_tokens = \(usage.promptTokens),
                            cached_prompt_tokens = \(usage.cachedPromptTokens),
                            completion_tokens = \(usage.completionTokens), reasoning_tokens = \(usage.reasoningTokens),
                            cost_micros = \(usage.costMicros), usage_estimated = \(usage.estimated),
                            price_version_id = \(priceID), error_code = \(outcome.failure?.code),
                            error_message = \(outcome.failure?.message), updated_at = \(now),
                            sources = \(StoredJSONList.json(outcome.sources)),
                            document_tokens = \(outcome.documentTokens),
                            tool_steps = \(StoredJSONList.json(outcome.toolSteps))
                        WHERE id = \(id) RETURNING conversation_id, parent_id),
                    lease AS (DELETE FROM reply_leases WHERE message_id = \(id)),
                    question AS (
                        UPDATE messages SET search_held = false
                        WHERE id = (SELECT parent_id FROM reply) AND search_held),
                    conversation AS (
                        UPDATE conversations SET updated_at = \(now) WHERE id = (SELECT conversation_id FROM reply)
                        RETURNING user_id)
                    SELECT user_id FROM conversation
                    """, logger: logger
                ).rows().first?["user_id"].decode(Int64.self)
                guard let owner else { return usage }
                if let pricing = outcome.pricing {
                    var totals = UsageTotals(reply: usage)
                    totals.documentTokens = Int64(outcome.documentTokens)
                    try await ledger.add(
                        totals, userID: owner, model: pricing.modelID, day: UsageDay(now), source: .chat)
                }
                return usage
            }
        }
    }

    @discardableResult
    public func chargeTitle(conversationID: ConversationID, usage: Usage, pricing: ReplyPricing)
        async throws(StoreError) -> Usage
    {
        let now = StoredMoment.now
        return try await perform {
            try await client.withTransaction(logger: logger) { connection in
                let ledger = PostgresUsageLedger(connection: connection, logger: logger)
                let (charged, _) = try await ledger.charge(
                    ReplyOutcome(content: "", status: .complete, usage: usage, pricing: pricing), at: now)
                let owner = try await connection.query(
                    """
                    UPDATE conversations SET title_cost_micros = title_cost_micros + \(charged.costMicros)
                    WHERE id = \(conversationID) RETURNING user_id
                    """, logger: logger
                ).rows().first?["user_id"].decode(Int64.self)
                if let owner {
                    var totals = UsageTotals(reply: charged)
                    totals.requests = 0
                    totals.titleTokens = totals.inputTokens + totals.outputTokens
                    totals.titleCostMicros = totals.costMicros
                    try await ledger.add(
                        totals, userID: owner, model: pricing.modelID, day: UsageDay(now), source: .chat)
                }
                return charged
            }
        }
    }

    public func budgetStatus(userID: UserID) async throws(StoreError) -> BudgetStatus {
        try await perform {
            try await client.withConnection { connection in
                try await PostgresUsageLedger(connection: connection, logger: logger)
                    .budgetStatus(userID: userID, today: UsageDay(Date()))
            }
        }
    }

    public func modelAccess(userID: UserID) async throws(StoreError) -> ModelAccess {
        try await perform {
            var access = ModelAccess.unrestricted
            for row in try await client.query(
                """
                SELECT a.model, bool_or(m.user_id IS NOT NULL) AS granted FROM model_access a
                LEFT JOIN group_members m ON m.group_id = a.group_id AND m.user_id = \(userID)
                GROUP BY a.model
                """, logger: logger
            ).collect() {
                let (model, granted) = try row.decode((String, Bool).self)
                access.restricted.insert(model)
                if granted { access.granted.insert(model) }
            }
            return access
        }
    }

    /// Marks `interrupted` the replies and completions no instance holds a live lease on (those of an instance that
    /// stopped; the replies other instances run are theirs).
    public func interruptUnfinishedReplies() async throws(StoreError) -> Int {
        try await perform {
            try await client.withTransaction(logger: logger) { connection in
                try await PostgresLeases.interruptUnleased(on: connection, logger: logger).count
            }
        }
    }

    /// Fills in the attachments and documents of `messages` (of one conversation, in id order).
    func attachFiles(to messages: inout [Message], on connection: PostgresConnection) async throws {
        guard let first = messages.first, let last = messages.last else { return }
        let attachments = try await PostgresAttachmentRows.byMessage(
            between: first.id, and: last.id, of: first.conversationID, on: connection, logger: logger)
        let documents = try await PostgresDocumentRows.byMessage(
            between: first.id, and: last.id, of: first.conversationID, on: connection, logger: logger)
        for index in messages.indices {
            messages[index].attachments = attachments[messages[index].id] ?? []
            messages[index].documents = documents[messages[index].id] ?? []
        }
    }

    /// Runs a change of one of the user's conversations that returns a row when it changed one; `.notFound` when none.
    private func updateOwned(_ change: PostgresQuery) async throws(StoreError) {
        try await perform {
            guard try await !client.query(change, logger: logger).rows().isEmpty else { throw StoreError.notFound }
        }
    }
}
