/// Account management for admins: the users with their budgets, and the changes an admin makes to them.
public protocol UserAdminStore: Sendable {
    /// Every user, by email.
    func accounts() async throws(StoreError) -> [UserAccount]
    /// One user, or nil.
    func account(id: UserID) async throws(StoreError) -> UserAccount?
    /// Disables a user (revoking their sessions) or enables them again; `.notFound` when there is no such user.
    func setDisabled(_ disabled: Bool, userID: UserID) async throws(StoreError)
    /// Makes a user an admin or takes it back; `.notFound` when there is no such user.
    func setAdmin(_ isAdmin: Bool, userID: UserID) async throws(StoreError)
    /// Replaces a user's password hash and revokes their sessions; `.notFound` when there is no such user.
    func setPasswordHash(_ hash: String, userID: UserID) async throws(StoreError)
    /// Sets a user's own monthly budget in micro-dollars, or nil for the default; `.notFound` when there is no such
    /// user.
    func setMonthlyBudget(_ micros: Int64?, userID: UserID) async throws(StoreError)
    /// The monthly budget of users without their own, or nil for no limit.
    func defaultMonthlyBudget() async throws(StoreError) -> Int64?
    /// Sets the monthly budget of users without their own (nil: no limit).
    func setDefaultMonthlyBudget(_ micros: Int64?) async throws(StoreError)
    /// Sets a user's own storage quota in bytes (nil: the default applies).
    func setStorageQuota(_ bytes: Int64?, userID: UserID) async throws(StoreError)
    /// Sets the default storage quota in bytes (from `PARLEY_USER_STORAGE_MB`, at every start).
    func setDefaultStorageQuota(_ bytes: Int64) async throws(StoreError)
    /// A user's stored bytes against their quota.
    func storage(userID: UserID) async throws(StoreError) -> StorageStatus
}
