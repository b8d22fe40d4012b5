/// A user's spend in a calendar month (UTC) against their monthly budget, or their group's spend against the group's
/// when that is the stricter; a budget of nil means no limit.
public struct BudgetStatus: Sendable, Equatable {
    /// From which share of the budget on the user is warned.
    public static let warningPercent: Int64 = 80
    /// The `settings` key of the monthly budget of users without their own, in micro-dollars (empty: no limit).
    public static let defaultBudgetSetting = "default_monthly_budget_micros"

    /// The first day of the month.
    public var month: UsageDay
    public var spentMicros: Int64
    public var budgetMicros: Int64?
    /// The group whose budget and members' spend these are; nil for the user's own.
    public var group: String?

    /// Creates a status.
    public init(month: UsageDay, spentMicros: Int64, budgetMicros: Int64?, group: String? = nil) {
        self.month = month
        self.spentMicros = spentMicros
        self.budgetMicros = budgetMicros
        self.group = group
    }

    /// The stricter of two statuses: a spent budget first, then the larger share used; `self` on a tie.
    public func stricter(_ other: BudgetStatus) -> BudgetStatus {
        guard other.budgetMicros != nil else { return self }
        guard budgetMicros != nil else { return other }
        if isExhausted != other.isExhausted { return isExhausted ? self : other }
        let mine = Int128(spentMicros) * Int128(other.budgetMicros ?? 0)
        let theirs = Int128(other.spentMicros) * Int128(budgetMicros ?? 0)
        return theirs > mine ? other : self
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
