import Foundation
import GRDB
import ParleyCore

/// The changes people make to their own account: a new password (signing out their other sessions) and a display
/// name.
extension SQLiteAccountStore {
    public func changePasswordHash(_ hash: String, userID: UserID, keepingSession keptSessionID: String)
        async throws(StoreError)
    {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(sql: "UPDATE users SET password_hash = ? WHERE id = ?")
                    .execute(arguments: [hash, userID])
                guard db.changesCount == 1 else { throw StoreError.notFound }
                try db.cachedStatement(sql: "DELETE FROM sessions WHERE user_id = ? AND id != ?")
                    .execute(arguments: [userID, keptSessionID])
            }
        }
    }

    public func setDisplayName(_ name: String?, userID: UserID) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(sql: "UPDATE users SET display_name = ? WHERE id = ?")
                    .execute(arguments: [name, userID])
                guard db.changesCount == 1 else { throw StoreError.notFound }
            }
        }
    }
}
