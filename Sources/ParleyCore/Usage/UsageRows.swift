/// One model's usage on one day (a chart segment).
public struct DailyModelUsage: Sendable, Equatable {
    public var day: UsageDay
    public var model: String
    public var totals: UsageTotals

    /// Creates a row.
    public init(day: UsageDay, model: String, totals: UsageTotals) {
        self.day = day
        self.model = model
        self.totals = totals
    }
}

/// One user's usage over a period; `email` is nil once the account is deleted (its spend stays counted).
public struct UserUsage: Sendable, Equatable {
    public var userID: UserID
    public var email: String?
    public var totals: UsageTotals

    /// Creates a row.
    public init(userID: UserID, email: String?, totals: UsageTotals) {
        self.userID = userID
        self.email = email
        self.totals = totals
    }
}

/// One model's usage over a period.
public struct ModelUsage: Sendable, Equatable {
    public var model: String
    public var totals: UsageTotals

    /// Creates a row.
    public init(model: String, totals: UsageTotals) {
        self.model = model
        self.totals = totals
    }
}

/// One rollup row: a user's use of a model on a day (a CSV line).
public struct UsageRecord: Sendable, Equatable {
    public var day: UsageDay
    public var userID: UserID
    public var email: String?
    public var model: String
    public var source: UsageSource
    public var totals: UsageTotals

    /// Creates a row.
    public init(
        day: UsageDay, userID: UserID, email: String?, model: String, source: UsageSource = .chat, totals: UsageTotals
    ) {
        self.day = day
        self.userID = userID
        self.email = email
        self.model = model
        self.source = source
        self.totals = totals
    }
}

/// What a conversation's replies cost over a period.
public struct ConversationCost: Sendable, Equatable {
    public var conversationID: ConversationID
    public var title: String
    public var replies: Int64
    public var costMicros: Int64

    /// Creates a row.
    public init(conversationID: ConversationID, title: String, replies: Int64, costMicros: Int64) {
        self.conversationID = conversationID
        self.title = title
        self.replies = replies
        self.costMicros = costMicros
    }
}
