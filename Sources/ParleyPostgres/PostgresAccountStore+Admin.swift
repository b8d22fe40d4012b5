import Foundation
import ParleyCore
import PostgresNIO

/// Account management for admins in PostgreSQL: users with their budgets and quotas, and the changes made to them.
extension PostgresAccountStore: UserAdminStore {
    public func accounts() async throws(StoreError) -> [UserAccount] {
        try await perform {
            try await client.query("SELECT * FROM users ORDER BY lower(email), id", logger: logger).rows()
                .map(UserAccount.init(row:))
        }
    }

    public func account(id: UserID) async throws(StoreError) -> UserAccount? {
        try await perform {
            try await client.query("SELECT * FROM users WHERE id = \(id)", logger: logger).rows().first
                .map(UserAccount.init(row:))
        }
    }

    public func setDisabled(_ disabled: Bool, userID: UserID) async throws(StoreError) {
        try await updateUser(
            userID, "UPDATE users SET is_disabled = \(disabled) WHERE id = \(userID) RETURNING 1",
            revokingSessions: disabled)
    }

    public func setAdmin(_ isAdmin: Bool, userID: UserID) async throws(StoreError) {
        try await updateUser(
            userID, "UPDATE users SET is_admin = \(isAdmin) WHERE id = \(userID) RETURNING 1", revokingSessions: false)
    }

    public func setPasswordHash(_ hash: String, userID: UserID) async throws(StoreError) {
        try await updateUser(
            userID, "UPDATE users SET password_hash = \(hash) WHERE id = \(userID) RETURNING 1", revokingSessions: true)
    }

    public func setMonthlyBudget(_ micros: Int64?, userID: UserID) async throws(StoreError) {
        try await updateUser(
            userID, "UPDATE users SET monthly_budget_micros = \(micros) WHERE id = \(userID) RETURNING 1",
            revokingSessions: false)
    }

    public func defaultMonthlyBudget() async throws(StoreError) -> Int64? {
        try await perform {
            try await client.query(
                "SELECT value FROM settings WHERE key = \(BudgetStatus.defaultBudgetSetting)", logger: logger
            ).rows().first.flatMap { Int64(try $0["value"].decode(String.self)) }
        }
    }

    public func setDefaultMonthlyBudget(_ micros: Int64?) async throws(StoreError) {
        try await putSetting(BudgetStatus.defaultBudgetSetting, micros.map(String.init) ?? "")
    }

    public func setStorageQuota(_ bytes: Int64?, userID: UserID) async throws(StoreError) {
        try await updateUser(
            userID, "UPDATE users SET storage_quota_bytes = \(bytes) WHERE id = \(userID) RETURNING 1",
            revokingSessions: false)
    }

    public func setDefaultStorageQuota(_ bytes: Int64) async throws(StoreError) {
        try await putSetting(StorageStatus.defaultQuotaSetting, String(bytes))
    }

    public func storage(userID: UserID) async throws(StoreError) -> StorageStatus {
        try await perform {
            try await client.withConnection { connection in
                try await PostgresStorageQuota.status(userID: userID, on: connection, logger: logger)
            }
        }
    }

    /// Stores a setting, replacing its value.
    private func putSetting(_ key: String, _ value: String) async throws(StoreError) {
        try await perform {
            try await client.query(
                """
                INSERT INTO settings (key, value) VALUES (\(key), \(value))
                ON CONFLICT (key) DO UPDATE SET value = excluded.value
                """, logger: logger)
        }
    }

    /// Runs one update of a user row that returns a row when it changed one (`.notFound` otherwise), revoking their
    /// sessions in the same transaction if asked.
    private func updateUser(_ userID: UserID, _ update: PostgresQuery, revokingSessions: Bool) async throws(StoreError)
    {
        try await perform {
            try await client.withTransaction(logger: logger) { connection in
                guard try await connection.query(update, logger: logger).rows().count == 1 else {
                    throw StoreError.notFound
                }
                if revokingSessions {
                    try await connection.query("DELETE FROM sessions WHERE user_id = \(userID)", logger: logger)
                }
            }
        }
    }
}

extension UserAccount {
    /// An account from a row of `users`.
    init(row: PostgresRandomAccessRow) throws {
        self.init(
            user: try User(row: row), monthlyBudgetMicros: try row["monthly_budget_micros"].decode(Int64?.self),
            storageQuotaBytes: try row["storage_quota_bytes"].decode(Int64?.self))
    }
}
