import Foundation
import GRDB
import ParleyCore

/// Synthetic usage history for measuring the admin pages: users, conversations of questions and charged replies
/// spread over the last `days` days, the models' price versions, and `usage_daily` rows that sum the replies exactly.
/// Written in a few large transactions with prepared statements; the same seed gives the same data.
public struct UsageFixture: Sendable {
    /// What was written.
    public struct Summary: Sendable, Equatable {
        public var users: Int
        public var conversations: Int
        public var messages: Int
        public var rollupRows: Int
        public var costMicros: Int64
    }

    /// The fixture's models and their list rates (micro-dollars per million tokens); `gpt-4o` changes price half-way.
    static let models: [(id: String, provider: String, rates: TokenRates)] = [
        ("gpt-4o-mini", "openai", TokenRates(input: 150_000, cachedInput: 75_000, output: 600_000)),
        ("gpt-4o", "openai", TokenRates(input: 2_500_000, cachedInput: 1_250_000, output: 10_000_000)),
        ("claude-sonnet-4-5", "anthropic", TokenRates(input: 3_000_000, cachedInput: 300_000, output: 15_000_000)),
        ("claude-haiku-4-5", "anthropic", TokenRates(input: 1_000_000, cachedInput: 100_000, output: 5_000_000)),
        ("gemini-2.5-flash", "gemini", TokenRates(input: 300_000, cachedInput: 75_000, output: 2_500_000)),
        ("parley-demo", "demo", TokenRates()),
    ]
    /// Messages per conversation (half questions, half replies).
    static let messagesPerConversation = 10
    /// Conversations written per transaction.
    static let conversationsPerTransaction = 10_000

    public var users: Int
    public var days: Int
    public var messages: Int
    public var seed: UInt64

    /// Describes a fixture: `messages` message rows (questions and replies) for `users` users over `days` days.
    public init(users: Int, days: Int, messages: Int, seed: UInt64 = 42) {
        self.users = max(1, users)
        self.days = max(1, days)
        self.messages = max(Self.messagesPerConversation, messages)
        self.seed = seed
    }

    /// Writes the fixture into `database`, which should hold no fixture yet (emails are unique), ending at `now`.
    public func write(to database: ParleyDatabase, now: Date = Date()) async throws(StoreError) -> Summary {
        let start = now.addingTimeInterval(-Double(days) * 86_400)
        let (userIDs, prices) = try await perform {
            try await database.pool.write { db in
                let userIDs = try (1...users).map { index -> UserID in
                    try db.execute(
                        sql: "INSERT INTO users (email, password_hash, is_admin, created_at) VALUES (?, '!', 0, ?)",
                        arguments: [String(format: "fixture-user-%05d@example.com", index), start])
                    return db.lastInsertedRowID
                }
                var prices: [String: [PriceVersion]] = [:]
                for model in Self.models {
                    prices[model.id] = [try PriceVersions.insert(db, modelID: model.id, rates: model.rates, at: start)]
                }
                var cheaper = Self.models[1].rates
                cheaper.input = 2_000_000
                prices["gpt-4o"]?.append(
                    try PriceVersions.insert(
                        db, modelID: "gpt-4o", rates: cheaper,
                        at: start.addingTimeInterval(Double(days) * 43_200)))
                return (userIDs, prices)
            }
        }
        var random = SplitMix64(seed: seed)
        var rollup: [String: (day: String, userID: UserID, model: String, totals: UsageTotals)] = [:]
        let conversations = (messages + Self.messagesPerConversation - 1) / Self.messagesPerConversation
        var written = 0
        while written < conversations {
            let batch = min(Self.conversationsPerTransaction, conversations - written)
            let first = written
            let rows = (0..<batch).map { _ in ConversationPlan(random: &random, users: userIDs, days: days, now: now) }
            let charged = try await perform {
                try await database.pool.write { db in
                    try Self.insert(rows, numbered: first, prices: prices, db)
                }
            }
            for reply in charged {
                let key = "\(reply.day)|\(reply.userID)|\(reply.model)"
                rollup[key, default: (reply.day, reply.userID, reply.model, UsageTotals())].totals += reply.totals
            }
            written += batch
        }
        let rollupRows = rollup.values.sorted { ($0.day, $0.userID, $0.model) < ($1.day, $1.userID, $1.model) }
        try await perform {
            try await database.pool.write { db in
                let statement = try db.makeStatement(
                    sql: """
                        INSERT INTO usage_daily (day, user_id, model, requests, input_tokens, cached_input_tokens, output_tokens, cost_micros,
                                                 estimated_tokens, estimated_cost_micros)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """)
                for row in rollupRows {
                    try statement.execute(arguments: [
                        row.day, row.userID, row.model, row.totals.requests, row.totals.inputTokens,
                        row.totals.cachedInputTokens, row.totals.outputTokens, row.totals.costMicros,
                        row.totals.estimatedTokens, row.totals.estimatedCostMicros,
                    ])
                }
            }
        }
        return Summary(
            users: users, conversations: conversations, messages: conversations * Self.messagesPerConversation,
            rollupRows: rollupRows.count, costMicros: rollupRows.reduce(0) { $0 + $1.totals.costMicros })
    }

    /// A reply as the rollup counts it.
    private struct ChargedReply {
        var day: String
        var userID: UserID
        var model: String
        var totals: UsageTotals
    }

    /// Inserts planned conversations with their messages, charging each reply at the version in force when it ended.
    private static func insert(
        _ plans: [ConversationPlan], numbered first: Int, prices: [String: [PriceVersion]],
        _ db: Database
    ) throws -> [ChargedReply] {
        let conversation = try db.makeStatement(
            sql: """
                INSERT INTO conversations (user_id, title, model, system_prompt, created_at, updated_at) VALUES (?, ?, ?, '', ?, ?)
                """)
        let question = try db.makeStatement(
            sql: """
                INSERT INTO messages (conversation_id, role, content, status, model, created_at, updated_at)
                VALUES (?, 'user', ?, 'complete', ?, ?, ?)
                """)
        let reply = try db.makeStatement(
            sql: """
                INSERT INTO messages (conversation_id, role, content, status, model, provider, parent_id, prompt_tokens,
                                      cached_prompt_tokens, completion_tokens, cost_micros, usage_estimated, price_version_id,
                                      created_at, updated_at)
                VALUES (?, 'assistant', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        var charged: [ChargedReply] = []
        for (offset, plan) in plans.enumerated() {
            let model = models[plan.model]
            let last = plan.replies.last?.endedAt ?? plan.startedAt
            try conversation.execute(arguments: [
                plan.userID, "Fixture conversation \(first + offset + 1)", model.id, plan.startedAt, last,
            ])
            let conversationID = db.lastInsertedRowID
            for (turn, planned) in plan.replies.enumerated() {
                try question.execute(arguments: [
                    conversationID, "Question \(turn + 1) about topic \(plan.topic)", model.id,
                    planned.askedAt, planned.askedAt,
                ])
                let questionID = db.lastInsertedRowID
                let versions = prices[model.id] ?? []
                let price = versions.last { $0.effectiveFrom <= planned.endedAt } ?? versions[0]
                var usage = planned.usage
                usage.costMicros = price.rates.cost(of: usage)
                try reply.execute(arguments: [
                    conversationID, "Answer \(turn + 1) about topic \(plan.topic).", planned.status.rawValue,
                    model.id, model.provider, questionID, usage.promptTokens, usage.cachedPromptTokens,
                    usage.completionTokens, usage.costMicros, usage.estimated, price.id,
                    planned.askedAt, planned.endedAt,
                ])
                charged.append(
                    ChargedReply(
                        day: UsageDay(planned.endedAt).description, userID: plan.userID, model: model.id,
                        totals: UsageTotals(reply: usage)))
            }
        }
        return charged
    }
}

/// One synthetic conversation: its owner, model, topic, start, and replies.
private struct ConversationPlan {
    struct Reply {
        var askedAt: Date
        var endedAt: Date
        var status: MessageStatus
        var usage: Usage
    }

    var userID: UserID
    var model: Int
    var topic: Int
    var startedAt: Date
    var replies: [Reply]

    /// A random conversation: users mostly keep to their own favourite model; most replies complete, a few stop or
    /// fail.
    init(random: inout SplitMix64, users: [UserID], days: Int, now: Date) {
        let user = Int(random.next() % UInt64(users.count))
        userID = users[user]
        let models = UsageFixture.models.count
        model = random.next() % 10 < 7 ? user % models : Int(random.next() % UInt64(models))
        topic = Int(random.next() % 5_000)
        startedAt = now.addingTimeInterval(-Double(random.next() % UInt64(days * 86_400)) - 600)
        var replies: [Reply] = []
        var prompt = 0
        for turn in 0..<(UsageFixture.messagesPerConversation / 2) {
            let askedAt = startedAt.addingTimeInterval(Double(turn) * 90)
            let roll = random.next() % 100
            let status: MessageStatus = roll < 95 ? .complete : roll < 98 ? .stopped : .error
            let completion = status == .error ? Int(random.next() % 40) : 50 + Int(random.next() % 1_200)
            prompt += 150 + Int(random.next() % 800)
            let cached = turn > 0 && random.next() % 2 == 0 ? prompt / 2 : 0
            replies.append(
                Reply(
                    askedAt: askedAt, endedAt: askedAt.addingTimeInterval(5 + Double(random.next() % 40)),
                    status: status,
                    usage: Usage(
                        promptTokens: prompt, cachedPromptTokens: cached, completionTokens: completion,
                        estimated: status == .error)))
            prompt += completion
        }
        self.replies = replies
    }
}
