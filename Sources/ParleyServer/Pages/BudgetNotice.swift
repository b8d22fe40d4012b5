import ParleyCore

/// How a user's monthly budget is shown: the usage section of the settings page, the warning banner from 80% on,
/// and the message of a refused send.
enum BudgetNotice {
    /// The template values of a status: spend, budget, share used, reset day, and the banner text when near the limit.
    static func values(_ status: BudgetStatus) -> [String: Any] {
        var values: [String: Any] = [
            "spent": MicroDollars.display(status.spentMicros), "resets_on": DayText.long(status.resetsOn),
            "resets_on_iso": status.resetsOn.description, "has_budget": status.budgetMicros != nil,
        ]
        values["budget"] = status.budgetMicros.map(MicroDollars.display)
        values["percent"] = status.percentUsed.map { min($0, 100) }
        values["banner"] = warning(status)
        return values
    }

    /// The banner shown from `BudgetStatus.warningPercent` on, nil below it.
    static func warning(_ status: BudgetStatus) -> String? {
        guard status.isNearLimit, let budget = status.budgetMicros else { return nil }
        if status.isExhausted { return exceeded(status) }
        return
            "\(whose(status)) used \(status.percentUsed ?? 0)% of \(budgetName(status)) "
            + "(\(MicroDollars.display(status.spentMicros)) of \(MicroDollars.display(budget))). At 100% sending stops "
            + "until \(DayText.long(status.resetsOn)) (UTC)."
    }

    /// Why a send is refused once the budget is spent, naming the budget and when it resets.
    static func exceeded(_ status: BudgetStatus) -> String {
        "\(whose(status)) used \(MicroDollars.display(status.spentMicros)) of \(budgetName(status)) "
            + "of \(MicroDollars.display(status.budgetMicros ?? 0)), so sending is paused until the budget resets on "
            + "\(DayText.long(status.resetsOn)) (UTC). An admin can raise it."
    }

    /// Who spent: "You have", or the group's members.
    private static func whose(_ status: BudgetStatus) -> String {
        status.group == nil ? "You have" : "The members of your group “\(status.group ?? "")” have"
    }

    /// Which budget: the user's own or their group's.
    private static func budgetName(_ status: BudgetStatus) -> String {
        status.group == nil ? "your monthly budget" : "its monthly budget"
    }
}
