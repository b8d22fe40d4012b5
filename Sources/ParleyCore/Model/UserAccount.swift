/// A user as the admin pages show them: the account and its own monthly budget (nil: the default applies).
public struct UserAccount: Sendable, Equatable {
    public var user: User
    public var monthlyBudgetMicros: Int64?

    /// Creates an account value.
    public init(user: User, monthlyBudgetMicros: Int64?) {
        self.user = user
        self.monthlyBudgetMicros = monthlyBudgetMicros
    }
}
