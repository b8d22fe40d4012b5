import Foundation
import GRDB
import ParleyCore

/// Personal API keys in SQLite, by the digest of their text.
public struct SQLiteAPIKeyStore: APIKeyStore {
    let pool: DatabasePool
    let writer: GroupCommitWriter

    /// Creates the store over an open database.
    public init(database: ParleyDatabase) {
        pool = database.pool
        writer = database.writer
    }

    public func createKey(userID: UserID, name: String, digest: String, expiresAt: Date?) async throws(StoreError)
        -> APIKey
    {
        try await perform {
            try await writer.write { db in
                let now = StoredDate.now
                let expiry = expiresAt.map(StoredDate.rounded)
                try db.cachedStatement(
                    sql: "INSERT INTO api_keys (user_id, name, digest, created_at, expires_at) VALUES (?, ?, ?, ?, ?)"
                ).execute(arguments: [userID, name, digest, now, expiry])
                return APIKey(
                    id: db.lastInsertedRowID, userID: userID, name: name, createdAt: now.date, lastUsedAt: nil,
                    expiresAt: expiry?.date)
            }
        }
    }

    public func keys(userID: UserID) async throws(StoreError) -> [APIKey] {
        try await perform {
            try pool.lookup { db in
                try Row.fetchAll(
                    db.cachedStatement(sql: "SELECT * FROM api_keys WHERE user_id = ? ORDER BY id DESC"),
                    arguments: [userID]
                ).map(APIKey.init(row:))
            }
        }
    }

    public func allKeys() async throws(StoreError) -> [(key: APIKey, email: String)] {
        try await perform {
            try pool.lookup { db in
                try Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT k.*, u.email FROM api_keys k JOIN users u ON u.id = k.user_id ORDER BY k.id DESC
                            """)
                ).map { (key: APIKey(row: $0), email: $0["email"] as String) }
            }
        }
    }

    public func deleteKey(id: Int64, userID: UserID?) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(sql: "DELETE FROM api_keys WHERE id = ? AND (? IS NULL OR user_id = ?)")
                    .execute(arguments: [id, userID, userID])
                guard db.changesCount == 1 else { throw StoreError.notFound }
            }
        }
    }

    public func key(digest: String, now: Date) async throws(StoreError) -> (key: APIKey, user: User)? {
        try await perform {
            try pool.lookup { db in
                guard
                    let keyRow = try Row.fetchOne(
                        db.cachedStatement(sql: "SELECT * FROM api_keys WHERE digest = ?"), arguments: [digest]),
                    let userRow = try Row.fetchOne(
                        db.cachedStatement(sql: "SELECT * FROM users WHERE id = ?"), arguments: [keyRow["user_id"]])
                else { return nil }
                let key = APIKey(row: keyRow)
                if let expiresAt = key.expiresAt, expiresAt <= now { return nil }
                return (key, User(row: userRow))
            }
        }
    }

    public func touchKey(id: Int64, at date: Date) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(sql: "UPDATE api_keys SET last_used_at = ? WHERE id = ?")
                    .execute(arguments: [StoredDate(date), id])
            }
        }
    }
}

extension APIKey {
    init(row: Row) {
        self.init(
            id: row["id"], userID: row["user_id"], name: row["name"], createdAt: row.date("created_at"),
            lastUsedAt: row.optionalDate("last_used_at"), expiresAt: row.optionalDate("expires_at"))
    }
}
