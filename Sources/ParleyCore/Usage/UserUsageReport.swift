/// One user's usage over a period: totals, per day and model, and their most expensive conversations.
public struct UserUsageReport: Sendable, Equatable {
    public var totals: UsageTotals
    public var daily: [DailyModelUsage]
    public var conversations: [ConversationCost]

    /// Creates a report.
    public init(totals: UsageTotals, daily: [DailyModelUsage], conversations: [ConversationCost]) {
        self.totals = totals
        self.daily = daily
        self.conversations = conversations
    }
}
