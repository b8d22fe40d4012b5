/// A user's spend in a calendar month (UTC) against their monthly budget; a budget of nil means no limit.
public struct BudgetStatus: Sendable, Equatable {
    /// From which share of the budget on the user is warned.
    public static let warningPercent: Int64 = 80

    /// The first day of the month.
    public var month: UsageDay
    public var spentMicros: Int64
    public var budgetMicros: Int64?

    /// Creates a status.
    public init(month: UsageDay, spentMicros: Int64, budgetMicros: Int64?) {
        self.month = month
        self.spentMicros = spentMicros
        self.budgetMicros = budgetMicros
    }

    /// Whether the budget is spent: sends are refused until the month ends.
    public var isExhausted: Bool {
        guard let budgetMicros else { return false }
        return spentMicros >= budgetMicros
    }

    /// Whether at least `warningPercent` of the budget is spent.
    public var isNearLimit: Bool {
        guard let budgetMicros else { return false }
        return Int128(spentMicros) * 100 >= Int128(budgetMicros) * Int128(Self.warningPercent)
    }

    /// The share of the budget spent, in whole percent (rounded down); nil without a budget.
    public var percentUsed: Int64? {
        guard let budgetMicros else { return nil }
        guard budgetMicros > 0 else { return spentMicros > 0 ? 100 : 0 }
        return Int64(min(Int128(spentMicros) * 100 / Int128(budgetMicros), Int128(Int64.max)))
    }

    /// The day the budget starts again: the first of the next month, UTC.
    public var resetsOn: UsageDay { month.firstOfNextMonth }
}
