import Foundation
import GRDB
import ParleyCore

/// A user's own view of their sessions: the list with each one's origin and last use, and signing one out.
extension SQLiteAccountStore {
    public func touchSession(id: String, at date: Date) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(sql: "UPDATE sessions SET last_used_at = ? WHERE id = ?")
                    .execute(arguments: [StoredDate(date), id])
            }
        }
    }

    public func sessions(userID: UserID, now: Date) async throws(StoreError) -> [SessionDetails] {
        try await perform {
            try pool.lookup { db in
                try Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT id, created_at, last_used_at, expires_at, user_agent, address FROM sessions
                            WHERE user_id = ? AND expires_at > ?
                            ORDER BY COALESCE(last_used_at, created_at) DESC, created_at DESC
                            """), arguments: [userID, StoredDate(now)]
                ).map { row in
                    SessionDetails(
                        id: row["id"], createdAt: row.date("created_at"), lastUsedAt: row.optionalDate("last_used_at"),
                        expiresAt: row.date("expires_at"),
                        origin: SessionOrigin(userAgent: row["user_agent"], address: row["address"]))
                }
            }
        }
    }

    public func deleteSession(id: String, userID: UserID) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(sql: "DELETE FROM sessions WHERE id = ? AND user_id = ?")
                    .execute(arguments: [id, userID])
                guard db.changesCount == 1 else { throw StoreError.notFound }
            }
        }
    }
}
