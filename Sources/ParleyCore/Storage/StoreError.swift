/// What a store reports when a request cannot be carried out.
public enum StoreError: Error, Equatable, Sendable {
    /// The row does not exist or belongs to someone else.
    case notFound
    /// A unique key (an email, a request id) is already taken.
    case duplicate
    /// Signing up is closed and at least one account exists.
    case signupClosed
    /// The user's monthly budget is spent.
    case budgetExceeded(BudgetStatus)
    /// A reply already streams in that conversation (on any instance sharing the database).
    case replyRunning
    /// The user has a monthly budget and another reply streaming.
    case budgetReplyRunning
    /// What was to be stored would put the user over their storage quota; nothing was stored.
    case storageFull(StorageStatus)
    /// The disk holding the database is full: the change was not saved (what was saved before is intact).
    case diskFull
    /// The database failed; the text is for logs, never for users.
    case database(String)
}
