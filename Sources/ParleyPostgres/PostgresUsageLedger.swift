import Foundation
import Logging
import ParleyCore
import PostgresNIO

/// Prices, the usage rollup and monthly budgets in PostgreSQL, inside the transactions that charge or start a reply
/// or completion; the same rules as SQLite's `PriceVersions`, `UsageRollup` and `BudgetLedger`.
struct PostgresUsageLedger {
    let connection: PostgresConnection
    let logger: Logger

    /// The version of `modelID` in force at `moment`: the latest that took effect by then.
    func currentPrice(modelID: String, at moment: Date) async throws -> PriceVersion? {
        try await connection.query(
            """
            SELECT * FROM model_prices WHERE model_id = \(modelID) AND effective_from <= \(moment)
            ORDER BY effective_from DESC, id DESC LIMIT 1
            """, logger: logger
        ).rows().first.map(PriceVersion.init(row:))
    }

    /// Adds a price version of `modelID` taking effect at `moment`.
    func insertPrice(modelID: String, rates: TokenRates, at moment: Date) async throws -> PriceVersion {
        let moment = StoredMoment.rounded(moment)
        let id =
            try await connection.query(
                """
                INSERT INTO model_prices (model_id, input, cached_input, output, effective_from)
                VALUES (\(modelID), \(rates.input), \(rates.cachedInput), \(rates.output), \(moment)) RETURNING id
                """, logger: logger
            ).rows().first?["id"].decode(Int64.self) ?? 0
        return PriceVersion(id: id, modelID: modelID, rates: rates, effectiveFrom: moment)
    }

    /// The usage of `outcome` priced at its pricing's version in force at `moment` (its history started with the
    /// list price when it has none), and that version's id; unpriced without a pricing.
    func charge(_ outcome: ReplyOutcome, at moment: Date) async throws -> (Usage, priceID: Int64?) {
        var usage = outcome.usage
        guard let pricing = outcome.pricing else { return (usage, nil) }
        let price: PriceVersion
        if let current = try await currentPrice(modelID: pricing.modelID, at: moment) {
            price = current
        } else {
            price = try await insertPrice(modelID: pricing.modelID, rates: pricing.listRates, at: moment)
        }
        usage.costMicros = price.rates.cost(of: usage)
        return (usage, price.id)
    }

    /// Adds `totals` to `userID`'s usage of `day`, `model` and `source`, as a row of `usage_changes` that waits for no
    /// other transaction (`fold` moves it into the rollup).
    func add(_ totals: UsageTotals, userID: UserID, model: String, day: UsageDay, source: UsageSource) async throws {
        try await connection.query(
            """
            INSERT INTO usage_changes (day, user_id, model, source, requests, input_tokens, cached_input_tokens,
                output_tokens, cost_micros, estimated_tokens, estimated_cost_micros, title_tokens, title_cost_micros,
                reasoning_tokens, document_tokens)
            VALUES (\(day.description), \(userID), \(model), \(source.rawValue), \(totals.requests),
                \(totals.inputTokens), \(totals.cachedInputTokens), \(totals.outputTokens), \(totals.costMicros),
                \(totals.estimatedTokens), \(totals.estimatedCostMicros), \(totals.titleTokens),
                \(totals.titleCostMicros), \(totals.reasoningTokens), \(totals.documentTokens))
            """, logger: logger)
    }

    /// Moves every row of `usage_changes` into its `usage_daily` row, in one statement (readers of `usage_rows` see
    /// the sums before or after it, never half of it).
    static func fold(client: PostgresClient, logger: Logger) async throws {
        try await client.query(
            """
            WITH moved AS (DELETE FROM usage_changes RETURNING *)
            INSERT INTO usage_daily (day, user_id, model, source, requests, input_tokens, cached_input_tokens,
                output_tokens, cost_micros, estimated_tokens, estimated_cost_micros, title_tokens, title_cost_micros,
                reasoning_tokens, document_tokens)
            SELECT day, user_id, model, source, SUM(requests), SUM(input_tokens), SUM(cached_input_tokens),
                SUM(output_tokens), SUM(cost_micros), SUM(estimated_tokens), SUM(estimated_cost_micros),
                SUM(title_tokens), SUM(title_cost_micros), SUM(reasoning_tokens), SUM(document_tokens)
            FROM moved GROUP BY day, user_id, model, source
            ON CONFLICT (day, user_id, model, source) DO UPDATE SET
                requests = usage_daily.requests + excluded.requests,
                input_tokens = usage_daily.input_tokens + excluded.input_tokens,
                cached_input_tokens = usage_daily.cached_input_tokens + excluded.cached_input_tokens,
                output_tokens = usage_daily.output_tokens + excluded.output_tokens,
                reasoning_tokens = usage_daily.reasoning_tokens + excluded.reasoning_tokens,
                document_tokens = usage_daily.document_tokens + excluded.document_tokens,
                cost_micros = usage_daily.cost_micros + excluded.cost_micros,
                estimated_tokens = usage_daily.estimated_tokens + excluded.estimated_tokens,
                estimated_cost_micros = usage_daily.estimated_cost_micros + excluded.estimated_cost_micros,
                title_tokens = usage_daily.title_tokens + excluded.title_tokens,
                title_cost_micros = usage_daily.title_cost_micros + excluded.title_cost_micros
            """, logger: logger)
    }

    /// The user's spend in the month of `today` against their budget (their own, else the default), or, when a group
    /// of theirs with a budget is nearer its limit, the group's members' spend and the group's budget.
    func budgetStatus(userID: UserID, today: UsageDay) async throws -> BudgetStatus {
        let month = today.firstOfMonth
        let row = try await connection.query(
            """
            SELECT COALESCE(u.monthly_budget_micros,
                    (SELECT value::bigint FROM settings WHERE key = \(BudgetStatus.defaultBudgetSetting)
                     AND value <> '')) AS budget,
                (SELECT COALESCE(SUM(cost_micros), 0)::bigint FROM usage_rows
                 WHERE user_id = u.id AND day >= \(month.description)) AS spent
            FROM users u WHERE u.id = \(userID)
            """, logger: logger
        ).rows().first
        let own = BudgetStatus(
            month: month, spentMicros: try row?["spent"].decode(Int64.self) ?? 0,
            budgetMicros: try row?["budget"].decode(Int64?.self))
        let groups = try await connection.query(
            """
            SELECT g.name, g.monthly_budget_micros AS budget,
                (SELECT COALESCE(SUM(d.cost_micros), 0)::bigint FROM group_members o
                 JOIN usage_rows d ON d.user_id = o.user_id AND d.day >= \(month.description)
                 WHERE o.group_id = g.id) AS spent
            FROM group_members m JOIN user_groups g ON g.id = m.group_id
            WHERE m.user_id = \(userID) AND g.monthly_budget_micros IS NOT NULL
            """, logger: logger
        ).rows()
        return try groups.reduce(own) { stricter, row in
            stricter.stricter(
                BudgetStatus(
                    month: month, spentMicros: try row["spent"].decode(Int64.self),
                    budgetMicros: try row["budget"].decode(Int64?.self), group: try row["name"].decode(String.self)))
        }
    }

    /// The column `budget_applies` of the user row `u`: whether the user has a monthly budget, their own, the
    /// default, or a group's (`budgetStatus`'s budget is not nil).
    static let budgetAppliesColumn = """
        (COALESCE(u.monthly_budget_micros,
            (SELECT value::bigint FROM settings WHERE key = '\(BudgetStatus.defaultBudgetSetting)' AND value <> ''))
            IS NOT NULL
         OR EXISTS (SELECT 1 FROM group_members m JOIN user_groups g ON g.id = m.group_id
                    WHERE m.user_id = u.id AND g.monthly_budget_micros IS NOT NULL)) AS budget_applies
        """

    /// Refuses a new reply or API completion when the user has a budget and has spent it, or has another reply or
    /// completion streaming (`enforceAppliedBudget`).
    func enforceBudget(userID: UserID, today: UsageDay) async throws {
        // Without a budget there is nothing to hold: the user's sends go at once, however many at a time.
        let applies =
            try await connection.query(
                "SELECT \(unescaped: Self.budgetAppliesColumn) FROM users u WHERE u.id = \(userID)", logger: logger
            ).rows().first?["budget_applies"].decode(Bool.self) ?? false
        if applies { try await enforceAppliedBudget(userID: userID, today: today) }
    }

    /// `enforceBudget` for a user whose budget applies (`budgetAppliesColumn`): the user's row is locked before the
    /// budget is checked, so that starts on any instance wait for each other: of two at once, the second sees the
    /// first running.
    func enforceAppliedBudget(userID: UserID, today: UsageDay) async throws {
        try await connection.query("SELECT 1 FROM users WHERE id = \(userID) FOR UPDATE", logger: logger)
        let status = try await budgetStatus(userID: userID, today: today)
        guard status.budgetMicros != nil else { return }
        if status.isExhausted { throw StoreError.budgetExceeded(status) }
        let running =
            try await connection.query(
                """
                SELECT EXISTS (SELECT 1 FROM messages m JOIN conversations c ON c.id = m.conversation_id
                               WHERE m.status = 'streaming' AND c.user_id = \(userID))
                    OR EXISTS (SELECT 1 FROM api_completions WHERE status = 'streaming' AND user_id = \(userID))
                """, logger: logger
            ).rows().first?[0].decode(Bool.self) ?? false
        if running { throw StoreError.budgetReplyRunning }
    }
}

extension PriceVersion {
    /// A version from a row of `model_prices`.
    init(row: PostgresRandomAccessRow) throws {
        self.init(
            id: try row["id"].decode(Int64.self), modelID: try row["model_id"].decode(String.self),
            rates: TokenRates(
                input: try row["input"].decode(Int64.self), cachedInput: try row["cached_input"].decode(Int64.self),
                output: try row["output"].decode(Int64.self)),
            effectiveFrom: try row.date("effective_from"))
    }
}
