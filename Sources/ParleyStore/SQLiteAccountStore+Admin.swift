import Foundation
import GRDB
import ParleyCore

extension SQLiteAccountStore: UserAdminStore {
    public func accounts() async throws(StoreError) -> [UserAccount] {
        try await perform {
            try await pool.scan { db in
                try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM users ORDER BY email, id")).map(
                    UserAccount.init(row:))
            }
        }
    }

    public func account(id: UserID) async throws(StoreError) -> UserAccount? {
        try await perform {
            try pool.lookup { db in
                try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM users WHERE id = ?"), arguments: [id]).map(
                    UserAccount.init(row:))
            }
        }
    }

    public func setDisabled(_ disabled: Bool, userID: UserID) async throws(StoreError) {
        try await updateUser(
            userID, sql: "UPDATE users SET is_disabled = ? WHERE id = ?", [disabled, userID], revokingSessions: disabled
        )
    }

    public func setAdmin(_ isAdmin: Bool, userID: UserID) async throws(StoreError) {
        try await updateUser(
            userID, sql: "UPDATE users SET is_admin = ? WHERE id = ?", [isAdmin, userID], revokingSessions: false)
    }

    public func setPasswordHash(_ hash: String, userID: UserID) async throws(StoreError) {
        try await updateUser(
            userID, sql: "UPDATE users SET password_hash = ? WHERE id = ?", [hash, userID], revokingSessions: true)
    }

    public func setMonthlyBudget(_ micros: Int64?, userID: UserID) async throws(StoreError) {
        try await updateUser(
            userID, sql: "UPDATE users SET monthly_budget_micros = ? WHERE id = ?", [micros, userID],
            revokingSessions: false)
    }

    public func defaultMonthlyBudget() async throws(StoreError) -> Int64? {
        try await perform {
            try pool.lookup { db in
                try String.fetchOne(
                    db.cachedStatement(sql: "SELECT value FROM settings WHERE key = ?"),
                    arguments: [BudgetStatus.defaultBudgetSetting]
                )
                .flatMap { Int64($0) }
            }
        }
    }

    public func setDefaultMonthlyBudget(_ micros: Int64?) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(sql: "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)").execute(
                    arguments: [BudgetStatus.defaultBudgetSetting, micros.map(String.init) ?? ""])
            }
        }
    }

    public func setStorageQuota(_ bytes: Int64?, userID: UserID) async throws(StoreError) {
        try await updateUser(
            userID, sql: "UPDATE users SET storage_quota_bytes = ? WHERE id = ?", [bytes, userID],
            revokingSessions: false)
    }

    public func setDefaultStorageQuota(_ bytes: Int64) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(sql: "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)")
                    .execute(arguments: [StorageStatus.defaultQuotaSetting, String(bytes)])
            }
        }
    }

    public func storage(userID: UserID) async throws(StoreError) -> StorageStatus {
        try await perform { try pool.lookup { db in try StorageLedger.status(db, userID: userID) } }
    }

    /// Runs one update of a user row (`.notFound` when there is none), revoking their sessions in the same transaction
    /// if asked.
    private func updateUser(_ userID: UserID, sql: String, _ arguments: StatementArguments, revokingSessions: Bool)
        async throws(StoreError)
    {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(sql: sql).execute(arguments: arguments)
                guard db.changesCount == 1 else { throw StoreError.notFound }
                if revokingSessions {
                    try db.cachedStatement(sql: "DELETE FROM sessions WHERE user_id = ?").execute(arguments: [userID])
                }
            }
        }
    }
}

extension UserAccount {
    init(row: Row) {
        self.init(
            user: User(row: row), monthlyBudgetMicros: row["monthly_budget_micros"],
            storageQuotaBytes: row["storage_quota_bytes"])
    }
}
