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
}
