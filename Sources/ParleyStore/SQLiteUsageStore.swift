import Foundation
import GRDB
import ParleyCore

/// Usage reports from the `usage_daily` rollup (never a scan of messages, but for one user's costliest conversations).
public struct SQLiteUsageStore: UsageStore {
    let pool: DatabasePool
    let writer: GroupCommitWriter

    /// The sums of a rollup query's rows, in the order `UsageTotals(row:at:)` reads them.
    static let sums =
        "SUM(requests), SUM(input_tokens), SUM(cached_input_tokens), SUM(output_tokens), SUM(cost_micros), "
        + "SUM(estimated_tokens), SUM(estimated_cost_micros), SUM(title_tokens), SUM(title_cost_micros), "
        + "SUM(reasoning_tokens), SUM(CASE WHEN source = 'api' THEN requests ELSE 0 END), "
        + "SUM(CASE WHEN source = 'api' THEN input_tokens + output_tokens ELSE 0 END), "
        + "SUM(CASE WHEN source = 'api' THEN cost_micros ELSE 0 END), SUM(document_tokens)"

    /// Creates the store over an open database.
    public init(database: ParleyDatabase) {
        pool = database.pool
        writer = database.writer
    }

    public func dashboard(period: UsagePeriod, sort: UsageSort, userLimit: Int) async throws(StoreError)
        -> UsageDashboard
    {
        try await perform {
            try await pool.scan { db in
                let range: StatementArguments = [period.from.description, period.to.description]
                let daily = try Self.daily(db, condition: "day BETWEEN ? AND ?", arguments: range)
                // Columns are read by position: a lookup by name lower-cases the name each time, which shows at these
                // sizes.
                let users = try Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT g.*, u.email FROM (SELECT user_id, \(Self.sums) FROM usage_daily WHERE day BETWEEN ? AND ? GROUP BY user_id) g
                            LEFT JOIN users u ON u.id = g.user_id
                            """), arguments: range
                ).map { UserUsage(userID: $0[0], email: $0[15], totals: UsageTotals(row: $0, at: 1)) }
                return UsageDashboard(daily: daily, users: users, sort: sort, userLimit: userLimit)
            }
        }
    }

    public func assistantSpend(period: UsagePeriod) async throws(StoreError) -> [AssistantSpend] {
        try await perform {
            try await pool.scan { db in
                try Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT c.assistant_name, COUNT(DISTINCT c.id), COUNT(m.id), SUM(m.cost_micros)
                            FROM conversations c JOIN messages m ON m.conversation_id = c.id AND m.role = 'assistant'
                            WHERE c.assistant_name IS NOT NULL AND m.updated_at >= ? AND m.updated_at < ?
                            GROUP BY COALESCE(c.assistant_id, -1), c.assistant_name ORDER BY 4 DESC, 1
                            """),
                    arguments: [period.from.description, period.to.adding(days: 1).description]
                ).map { AssistantSpend(name: $0[0], conversations: $0[1], replies: $0[2], costMicros: $0[3] ?? 0) }
            }
        }
    }

    public func records(period: UsagePeriod) async throws(StoreError) -> [UsageRecord] {
        try await perform {
            try await pool.scan { db in
                try Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT d.day, d.user_id, u.email, d.model, d.source, d.requests, d.input_tokens, d.cached_input_tokens,
                                   d.output_tokens, d.cost_micros, d.estimated_tokens, d.estimated_cost_micros, d.title_tokens,
                                   d.title_cost_micros, d.reasoning_tokens
                            FROM usage_daily d LEFT JOIN users u ON u.id = d.user_id
                            WHERE d.day BETWEEN ? AND ? ORDER BY d.day, d.user_id, d.model, d.source
                            """), arguments: [period.from.description, period.to.description]
                ).map { row in
                    UsageRecord(
                        day: UsageDay(row[0] as String) ?? period.from, userID: row[1], email: row[2], model: row[3],
                        source: UsageSource(rawValue: row[4]) ?? .chat, totals: UsageTotals(row: row, at: 5))
                }
            }
        }
    }

    public func userReport(userID: UserID, period: UsagePeriod, conversationLimit: Int) async throws(StoreError)
        -> UserUsageReport
    {
        try await perform {
            try await pool.scan { db in
                let daily = try Self.daily(
                    db, condition: "user_id = ? AND day BETWEEN ? AND ?",
                    arguments: [userID, period.from.description, period.to.description])
                var totals = UsageTotals()
                for row in daily { totals += row.totals }
                let conversations = try Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT c.id, c.title, COUNT(*) AS replies, SUM(m.cost_micros) + c.title_cost_micros AS cost_micros
                            FROM conversations c JOIN messages m ON m.conversation_id = c.id
                            WHERE c.user_id = ? AND m.role = 'assistant' AND m.price_version_id IS NOT NULL
                              AND m.updated_at >= ? AND m.updated_at < ?
                            GROUP BY c.id ORDER BY cost_micros DESC, c.id DESC LIMIT ?
                            """),
                    arguments: [userID, period.from.start, period.to.adding(days: 1).start, conversationLimit]
                ).map {
                    ConversationCost(
                        conversationID: $0["id"], title: $0["title"], replies: $0["replies"],
                        costMicros: $0["cost_micros"])
                }
                return UserUsageReport(totals: totals, daily: daily, conversations: conversations)
            }
        }
    }

    public func spend(since: UsageDay) async throws(StoreError) -> [UserID: Int64] {
        try await perform {
            try await pool.scan { db in
                let rows = try Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT user_id, SUM(cost_micros) FROM usage_daily WHERE day >= ? GROUP BY user_id
                            """), arguments: [since.description])
                return Dictionary(
                    rows.map { (row: Row) -> (UserID, Int64) in (row[0], row[1]) },
                    uniquingKeysWith: +)
            }
        }
    }

    /// The rollup summed by day and model over the rows matching `condition`, by day, then model.
    private static func daily(_ db: Database, condition: String, arguments: StatementArguments) throws
        -> [DailyModelUsage]
    {
        try Row.fetchAll(
            db,
            sql: """
                SELECT day, model, \(sums) FROM usage_daily WHERE \(condition) GROUP BY day, model ORDER BY day, model
                """, arguments: arguments
        ).compactMap { row in
            UsageDay(row[0] as String).map {
                DailyModelUsage(day: $0, model: row[1], totals: UsageTotals(row: row, at: 2))
            }
        }
    }
}

extension UsageTotals {
    /// The totals in up to fourteen columns of a row from `index` on: requests, input, cached input and output tokens,
    /// cost, estimated tokens and cost, titles' tokens and cost, reasoning tokens, and the sums' API requests, tokens,
    /// cost and documents' input tokens (0 where a row has no such columns).
    init(row: Row, at index: Int) {
        self.init(
            requests: row[index] ?? 0, inputTokens: row[index + 1] ?? 0, cachedInputTokens: row[index + 2] ?? 0,
            outputTokens: row[index + 3] ?? 0, reasoningTokens: row[index + 9] ?? 0, costMicros: row[index + 4] ?? 0,
            estimatedTokens: row[index + 5] ?? 0, estimatedCostMicros: row[index + 6] ?? 0,
            titleTokens: row[index + 7] ?? 0, titleCostMicros: row[index + 8] ?? 0,
            apiRequests: row.count > index + 12 ? row[index + 10] ?? 0 : 0,
            apiTokens: row.count > index + 12 ? row[index + 11] ?? 0 : 0,
            apiCostMicros: row.count > index + 12 ? row[index + 12] ?? 0 : 0)
        documentTokens = row.count > index + 13 ? row[index + 13] ?? 0 : 0
    }
}
