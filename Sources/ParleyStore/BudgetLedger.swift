import GRDB
import ParleyCore

/// Monthly budgets, read from the rollup: a user's spend this month against their budget (their own, else the
/// default in `settings`), and the check made in the transaction that starts a reply.
enum BudgetLedger {
    /// The user's spend in the month of `today` and their budget (one indexed read of the rollup), or, when a group
    /// of theirs with a budget is nearer its limit, the group's members' spend and the group's budget.
    static func status(_ db: Database, userID: UserID, today: UsageDay) throws -> BudgetStatus {
        let month = today.firstOfMonth
        let row = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT COALESCE(u.monthly_budget_micros,
                                    (SELECT CAST(value AS INTEGER) FROM settings WHERE key = ? AND value != '')) AS budget,
                           (SELECT COALESCE(SUM(cost_micros), 0) FROM usage_daily WHERE user_id = u.id AND day >= ?) AS spent
                    FROM users u WHERE u.id = ?
                    """), arguments: [BudgetStatus.defaultBudgetSetting, month.description, userID])
        let own = BudgetStatus(month: month, spentMicros: row?["spent"] ?? 0, budgetMicros: row?["budget"])
        let groups = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT g.name, g.monthly_budget_micros AS budget,
                           (SELECT COALESCE(SUM(d.cost_micros), 0) FROM group_members o
                            JOIN usage_daily d ON d.user_id = o.user_id AND d.day >= ?
                            WHERE o.group_id = g.id) AS spent
                    FROM group_members m JOIN user_groups g ON g.id = m.group_id
                    WHERE m.user_id = ? AND g.monthly_budget_micros IS NOT NULL
                    """), arguments: [month.description, userID])
        return groups.reduce(own) { stricter, row in
            stricter.stricter(
                BudgetStatus(month: month, spentMicros: row["spent"], budgetMicros: row["budget"], group: row["name"]))
        }
    }

    /// Refuses a new reply in the conversation when its owner has a budget and has spent it, or has another reply
    /// streaming (`enforce(_:userID:today:)`).
    static func enforce(_ db: Database, conversationID: ConversationID, today: UsageDay) throws {
        guard
            let userID = try UserID.fetchOne(
                db.cachedStatement(sql: "SELECT user_id FROM conversations WHERE id = ?"),
                arguments: [conversationID])
        else { return }
        try enforce(db, userID: userID, today: today)
    }

    /// Refuses a new reply or API completion when the user has a budget and has spent it, or has another reply or
    /// completion streaming: those that have not ended are not in the rollup yet, so running one at a time is what
    /// keeps concurrent requests from overspending by more than one.
    static func enforce(_ db: Database, userID: UserID, today: UsageDay) throws {
        let status = try status(db, userID: userID, today: today)
        guard status.budgetMicros != nil else { return }
        if status.isExhausted { throw StoreError.budgetExceeded(status) }
        let running =
            try Bool.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT EXISTS (SELECT 1 FROM messages m JOIN conversations c ON c.id = m.conversation_id
                                       WHERE m.status = 'streaming' AND c.user_id = ?)
                            OR EXISTS (SELECT 1 FROM api_completions WHERE status = 'streaming' AND user_id = ?)
                        """), arguments: [userID, userID]) ?? false
        if running { throw StoreError.budgetReplyRunning }
    }
}
