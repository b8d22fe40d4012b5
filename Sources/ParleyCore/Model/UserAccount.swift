/// A user as the admin pages show them: the account and its own monthly budget and storage quota (nil: the default
/// applies).
public struct UserAccount: Sendable, Equatable {
    public var user: User
    public var monthlyBudgetMicros: Int64?
    public var storageQuotaBytes: Int64?

    /// Creates an account value.
    public init(user: User, monthlyBudgetMicros: Int64?, storageQuotaBytes: Int64? = nil) {
        self.user = user
        self.monthlyBudgetMicros = monthlyBudgetMicros
        self.storageQuotaBytes = storageQuotaBytes
    }
}
