import GRDB
import ParleyCore

/// The storage quota: a user's stored bytes (images and message text, kept in `users.stored_bytes` by triggers)
/// against their quota (their own, else the default in `settings`), checked in the transaction that stores more.
enum StorageLedger {
    /// The user's stored bytes and quota (one read of their row).
    static func status(_ db: Database, userID: UserID) throws -> StorageStatus {
        let row = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT stored_bytes, COALESCE(storage_quota_bytes,
                        (SELECT CAST(value AS INTEGER) FROM settings WHERE key = ? AND value != ''), ?) AS quota
                    FROM users WHERE id = ?
                    """), arguments: [StorageStatus.defaultQuotaSetting, StorageStatus.fallbackQuotaBytes, userID])
        return StorageStatus(
            storedBytes: row?["stored_bytes"] ?? 0, quotaBytes: row?["quota"] ?? StorageStatus.fallbackQuotaBytes)
    }

    /// Throws `.storageFull` when what the transaction has stored so far puts the user over their quota, so that the
    /// caller's savepoint rolls all of it back.
    static func enforce(_ db: Database, userID: UserID) throws {
        let status = try status(db, userID: userID)
        if status.isOver { throw StoreError.storageFull(status) }
    }

    /// `enforce` for the owner of a conversation.
    static func enforce(_ db: Database, conversationID: ConversationID) throws {
        guard
            let userID = try UserID.fetchOne(
                db.cachedStatement(sql: "SELECT user_id FROM conversations WHERE id = ?"),
                arguments: [conversationID])
        else { return }
        try enforce(db, userID: userID)
    }
}
