/// The cost records of completions asked through the OpenAI-compatible endpoint, which no conversation holds.
public protocol APICompletionStore: Sendable {
    /// Records a completion starting for the user with `model`; with a monthly budget, refuses as a reply's start does
    /// (`.budgetExceeded` once spent, `.budgetReplyRunning` while a reply or completion of theirs runs).
    func beginAPICompletion(userID: UserID, keyID: Int64?, model: String) async throws(StoreError) -> APICompletionID
    /// Records how the completion ended, prices it (`outcome.pricing`) and adds it to the rollup as the API's; returns
    /// the usage as charged.
    func finishAPICompletion(id: APICompletionID, outcome: ReplyOutcome) async throws(StoreError) -> Usage
}
