/// The usage rollup and the price history, as the admin pages read and change them.
public protocol UsageStore: Sendable {
    /// The dashboard of a period: totals, spend per day and model, the users (in `sort` order, at most `userLimit`)
    /// and the models, all from the rollup in one snapshot.
    func dashboard(period: UsagePeriod, sort: UsageSort, userLimit: Int) async throws(StoreError) -> UsageDashboard
    /// Every rollup row of a period, by day, user and model (for the CSV download).
    func records(period: UsagePeriod) async throws(StoreError) -> [UsageRecord]
    /// One user's usage of a period and their `conversationLimit` most expensive conversations in it.
    func userReport(userID: UserID, period: UsagePeriod, conversationLimit: Int) async throws(StoreError)
        -> UserUsageReport
    /// Each user's spend from `since` on, by user id (users without any are left out).
    func spend(since: UsageDay) async throws(StoreError) -> [UserID: Int64]
    /// The spend of a period's replies by the assistant their conversation was started with (by its name then), most
    /// first; conversations without one are left out. Read from the replies, not the rollup.
    func assistantSpend(period: UsagePeriod) async throws(StoreError) -> [AssistantSpend]
    /// Every price version of every model, oldest first (the last of a model is the one in force).
    func priceVersions() async throws(StoreError) -> [PriceVersion]
    /// Adds a price version for a model, in force from now on; earlier replies keep the version they were charged at.
    func setPrice(modelID: String, rates: TokenRates) async throws(StoreError) -> PriceVersion
}
