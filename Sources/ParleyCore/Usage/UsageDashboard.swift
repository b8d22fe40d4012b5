/// Everything the admin dashboard shows for a period, read from the rollup in one snapshot.
public struct UsageDashboard: Sendable, Equatable {
    public var totals: UsageTotals
    public var activeUsers: Int
    public var daily: [DailyModelUsage]
    /// The users with usage in the period, in the requested order, at most the requested number.
    public var users: [UserUsage]
    public var models: [ModelUsage]

    /// Creates a dashboard.
    public init(
        totals: UsageTotals, activeUsers: Int, daily: [DailyModelUsage], users: [UserUsage], models: [ModelUsage]
    ) {
        self.totals = totals
        self.activeUsers = activeUsers
        self.daily = daily
        self.users = users
        self.models = models
    }

    /// The dashboard of the rollup's rows summed by day and model (`daily`) and by user (`users`): totals and models
    /// from the days, the users in `sort` order, at most `userLimit` of them.
    public init(daily: [DailyModelUsage], users: [UserUsage], sort: UsageSort, userLimit: Int) {
        var byModel: [String: UsageTotals] = [:]
        var totals = UsageTotals()
        for row in daily {
            byModel[row.model, default: UsageTotals()] += row.totals
            totals += row.totals
        }
        let models = byModel.map { ModelUsage(model: $0.key, totals: $0.value) }
            .sorted { sort.orders(($0.model, $0.totals), before: ($1.model, $1.totals)) }
        let ordered = users.sorted { sort.orders(($0.email ?? "", $0.totals), before: ($1.email ?? "", $1.totals)) }
        self.init(
            totals: totals, activeUsers: users.count, daily: daily, users: Array(ordered.prefix(userLimit)),
            models: models)
    }
}
