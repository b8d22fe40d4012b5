import Foundation
import Logging
import ParleyCore
import PostgresNIO

/// Usage reports from the rollup in PostgreSQL, `usage_rows` (`usage_daily` and the changes not yet folded into it):
/// never a scan of messages, but for one user's costliest conversations and the assistants' spend; and the price
/// history.
public struct PostgresUsageStore: UsageStore {
    let client: PostgresClient
    let logger: Logger

    /// Creates the store over a database.
    public init(database: PostgresStorage) {
        client = database.client
        logger = database.logger
    }

    /// The sums of `usage_rows`'s counters, each named as its column (`UsageTotals(rollup:)` reads them).
    static let columnSums = """
        SUM(requests)::bigint AS requests, SUM(input_tokens)::bigint AS input_tokens,
        SUM(cached_input_tokens)::bigint AS cached_input_tokens, SUM(output_tokens)::bigint AS output_tokens,
        SUM(cost_micros)::bigint AS cost_micros, SUM(estimated_tokens)::bigint AS estimated_tokens,
        SUM(estimated_cost_micros)::bigint AS estimated_cost_micros, SUM(title_tokens)::bigint AS title_tokens,
        SUM(title_cost_micros)::bigint AS title_cost_micros, SUM(reasoning_tokens)::bigint AS reasoning_tokens,
        SUM(document_tokens)::bigint AS document_tokens
        """

    /// The sums of a rollup query's rows, named as `UsageTotals(sums:)` reads them.
    static let sums = """
        \(columnSums),
        SUM(CASE WHEN source = 'api' THEN requests ELSE 0 END)::bigint AS api_requests,
        SUM(CASE WHEN source = 'api' THEN input_tokens + output_tokens ELSE 0 END)::bigint AS api_tokens,
        SUM(CASE WHEN source = 'api' THEN cost_micros ELSE 0 END)::bigint AS api_cost_micros
        """

    public func dashboard(period: UsagePeriod, sort: UsageSort, userLimit: Int) async throws(StoreError)
        -> UsageDashboard
    {
        try await perform {
            try await client.withConnection { connection in
                let daily = try await daily(period: period, userID: nil, on: connection)
                let users = try await connection.query(
                    """
                    SELECT g.*, u.email FROM (
                        SELECT user_id, \(unescaped: Self.sums) FROM usage_rows
                        WHERE day BETWEEN \(period.from.description) AND \(period.to.description) GROUP BY user_id) g
                    LEFT JOIN users u ON u.id = g.user_id
                    """, logger: logger
                ).rows().map { row in
                    UserUsage(
                        userID: try row["user_id"].decode(Int64.self), email: try row["email"].decode(String?.self),
                        totals: try UsageTotals(sums: row))
                }
                return UsageDashboard(daily: daily, users: users, sort: sort, userLimit: userLimit)
            }
        }
    }

    public func records(period: UsagePeriod) async throws(StoreError) -> [UsageRecord] {
        try await perform {
            try await client.query(
                """
                SELECT d.*, u.email FROM (
                    SELECT day, user_id, model, source, \(unescaped: Self.columnSums) FROM usage_rows
                    WHERE day BETWEEN \(period.from.description) AND \(period.to.description)
                    GROUP BY day, user_id, model, source) d
                LEFT JOIN users u ON u.id = d.user_id
                ORDER BY d.day, d.user_id, d.model COLLATE "C", d.source
                """, logger: logger
            ).rows().map { row in
                UsageRecord(
                    day: UsageDay(try row["day"].decode(String.self)) ?? period.from,
                    userID: try row["user_id"].decode(Int64.self), email: try row["email"].decode(String?.self),
                    model: try row["model"].decode(String.self),
                    source: UsageSource(rawValue: try row["source"].decode(String.self)) ?? .chat,
                    totals: try UsageTotals(rollup: row))
            }
        }
    }

    public func userReport(userID: UserID, period: UsagePeriod, conversationLimit: Int) async throws(StoreError)
        -> UserUsageReport
    {
        try await perform {
            try await client.withConnection { connection in
                let daily = try await daily(period: period, userID: userID, on: connection)
                var totals = UsageTotals()
                for row in daily { totals += row.totals }
                let conversations = try await connection.query(
                    """
                    SELECT c.id, c.title, COUNT(*) AS replies,
                        (SUM(m.cost_micros) + c.title_cost_micros)::bigint AS cost_micros
                    FROM conversations c JOIN messages m ON m.conversation_id = c.id
                    WHERE c.user_id = \(userID) AND m.role = 'assistant' AND m.price_version_id IS NOT NULL
                      AND m.updated_at >= \(period.from.start) AND m.updated_at < \(period.to.adding(days: 1).start)
                    GROUP BY c.id ORDER BY cost_micros DESC, c.id DESC LIMIT \(conversationLimit)
                    """, logger: logger
                ).rows().map { row in
                    ConversationCost(
                        conversationID: try row["id"].decode(Int64.self), title: try row["title"].decode(String.self),
                        replies: try row["replies"].decode(Int64.self),
                        costMicros: try row["cost_micros"].decode(Int64.self))
                }
                return UserUsageReport(totals: totals, daily: daily, conversations: conversations)
            }
        }
    }

    public func spend(since: UsageDay) async throws(StoreError) -> [UserID: Int64] {
        try await perform {
            let rows = try await client.query(
                """
                SELECT user_id, SUM(cost_micros)::bigint FROM usage_rows WHERE day >= \(since.description)
                GROUP BY user_id
                """, logger: logger
            ).collect()
            return Dictionary(try rows.map { try $0.decode((Int64, Int64).self) }, uniquingKeysWith: +)
        }
    }

    public func assistantSpend(period: UsagePeriod) async throws(StoreError) -> [AssistantSpend] {
        try await perform {
            try await client.query(
                """
                SELECT c.assistant_name, COUNT(DISTINCT c.id), COUNT(m.id), COALESCE(SUM(m.cost_micros), 0)::bigint
                FROM conversations c JOIN messages m ON m.conversation_id = c.id AND m.role = 'assistant'
                WHERE c.assistant_name IS NOT NULL AND m.updated_at >= \(period.from.start)
                  AND m.updated_at < \(period.to.adding(days: 1).start)
                GROUP BY COALESCE(c.assistant_id, -1), c.assistant_name ORDER BY 4 DESC, 1
                """, logger: logger
            ).collect().map { row in
                let (name, conversations, replies, cost) = try row.decode((String, Int64, Int64, Int64).self)
                return AssistantSpend(
                    name: name, conversations: Int(conversations), replies: Int(replies), costMicros: cost)
            }
        }
    }

    public func priceVersions() async throws(StoreError) -> [PriceVersion] {
        try await perform {
            try await client.query("SELECT * FROM model_prices ORDER BY effective_from, id", logger: logger).rows()
                .map(PriceVersion.init(row:))
        }
    }

    public func setPrice(modelID: String, rates: TokenRates) async throws(StoreError) -> PriceVersion {
        try await perform {
            try await client.withConnection { connection in
                try await PostgresUsageLedger(connection: connection, logger: logger)
                    .insertPrice(modelID: modelID, rates: rates, at: Date())
            }
        }
    }

    /// The rollup summed by day and model over a period (and one user, when given), by day, then model.
    private func daily(period: UsagePeriod, userID: UserID?, on connection: PostgresConnection) async throws
        -> [DailyModelUsage]
    {
        try await connection.query(
            """
            SELECT day, model, \(unescaped: Self.sums) FROM usage_rows
            WHERE day BETWEEN \(period.from.description) AND \(period.to.description)
              AND (\(userID)::bigint IS NULL OR user_id = \(userID))
            GROUP BY day, model ORDER BY day, model COLLATE "C"
            """, logger: logger
        ).rows().compactMap { row in
            try UsageDay(try row["day"].decode(String.self)).map { day in
                DailyModelUsage(
                    day: day, model: try row["model"].decode(String.self), totals: try UsageTotals(sums: row))
            }
        }
    }
}

extension UsageTotals {
    /// Totals from a row of `PostgresUsageStore.sums` (NULL sums are 0).
    init(sums row: PostgresRandomAccessRow) throws {
        func sum(_ column: String) throws -> Int64 { try row[column].decode(Int64?.self) ?? 0 }
        self.init(
            requests: try sum("requests"), inputTokens: try sum("input_tokens"),
            cachedInputTokens: try sum("cached_input_tokens"), outputTokens: try sum("output_tokens"),
            reasoningTokens: try sum("reasoning_tokens"), costMicros: try sum("cost_micros"),
            estimatedTokens: try sum("estimated_tokens"), estimatedCostMicros: try sum("estimated_cost_micros"),
            titleTokens: try sum("title_tokens"), titleCostMicros: try sum("title_cost_micros"),
            apiRequests: try sum("api_requests"), apiTokens: try sum("api_tokens"),
            apiCostMicros: try sum("api_cost_micros"))
        documentTokens = try sum("document_tokens")
    }

    /// Totals from one rollup row of a day, user, model and source (its API counts stay 0, as SQLite's records have
    /// them).
    init(rollup row: PostgresRandomAccessRow) throws {
        func value(_ column: String) throws -> Int64 { try row[column].decode(Int64.self) }
        self.init(
            requests: try value("requests"), inputTokens: try value("input_tokens"),
            cachedInputTokens: try value("cached_input_tokens"), outputTokens: try value("output_tokens"),
            reasoningTokens: try value("reasoning_tokens"), costMicros: try value("cost_micros"),
            estimatedTokens: try value("estimated_tokens"), estimatedCostMicros: try value("estimated_cost_micros"),
            titleTokens: try value("title_tokens"), titleCostMicros: try value("title_cost_micros"))
    }
}
