import Foundation
import Logging
import ParleyCore
import PostgresNIO

/// Personal API keys in PostgreSQL, by the digest of their text.
public struct PostgresAPIKeyStore: APIKeyStore {
    let client: PostgresClient
    let logger: Logger

    /// Creates the store over a database.
    public init(database: PostgresStorage) {
        client = database.client
        logger = database.logger
    }

    public func createKey(userID: UserID, name: String, digest: String, expiresAt: Date?) async throws(StoreError)
        -> APIKey
    {
        let now = StoredMoment.now
        let expiresAt = expiresAt.map(StoredMoment.rounded)
        return try await perform {
            let id =
                try await client.query(
                    """
                    INSERT INTO api_keys (user_id, name, digest, created_at, expires_at)
                    VALUES (\(userID), \(name), \(digest), \(now), \(expiresAt)) RETURNING id
                    """, logger: logger
                ).rows().first?["id"].decode(Int64.self) ?? 0
            return APIKey(id: id, userID: userID, name: name, createdAt: now, lastUsedAt: nil, expiresAt: expiresAt)
        }
    }

    public func keys(userID: UserID) async throws(StoreError) -> [APIKey] {
        try await perform {
            try await client.query("SELECT * FROM api_keys WHERE user_id = \(userID) ORDER BY id DESC", logger: logger)
                .rows().map(APIKey.init(row:))
        }
    }

    public func allKeys() async throws(StoreError) -> [(key: APIKey, email: String)] {
        try await perform {
            try await client.query(
                "SELECT k.*, u.email FROM api_keys k JOIN users u ON u.id = k.user_id ORDER BY k.id DESC",
                logger: logger
            ).rows().map { (key: try APIKey(row: $0), email: try $0["email"].decode(String.self)) }
        }
    }

    public func deleteKey(id: Int64, userID: UserID?) async throws(StoreError) {
        try await perform {
            let deleted = try await client.query(
                """
                DELETE FROM api_keys WHERE id = \(id) AND (\(userID)::bigint IS NULL OR user_id = \(userID))
                RETURNING 1
                """, logger: logger
            ).rows()
            guard deleted.count == 1 else { throw StoreError.notFound }
        }
    }

    public func key(digest: String, now: Date) async throws(StoreError) -> (key: APIKey, user: User)? {
        try await perform {
            guard
                let row = try await client.query(
                    """
                    SELECT u.*, k.id AS key_id, k.name AS key_name, k.created_at AS key_created_at,
                    k.last_used_at AS key_last_used_at, k.expires_at AS key_expires_at
                    FROM api_keys k JOIN users u ON u.id = k.user_id
                    WHERE k.digest = \(digest) AND (k.expires_at IS NULL OR k.expires_at > \(now))
                    """, logger: logger
                ).rows().first
            else { return nil }
            let user = try User(row: row)
            let key = APIKey(
                id: try row["key_id"].decode(Int64.self), userID: user.id,
                name: try row["key_name"].decode(String.self),
                createdAt: try row.date("key_created_at"), lastUsedAt: try row.optionalDate("key_last_used_at"),
                expiresAt: try row.optionalDate("key_expires_at"))
            return (key, user)
        }
    }

    public func touchKey(id: Int64, at date: Date) async throws(StoreError) {
        let date = StoredMoment.rounded(date)
        try await perform {
            try await client.query("UPDATE api_keys SET last_used_at = \(date) WHERE id = \(id)", logger: logger)
        }
    }
}

extension APIKey {
    /// A key from a row of `api_keys`.
    init(row: PostgresRandomAccessRow) throws {
        self.init(
            id: try row["id"].decode(Int64.self), userID: try row["user_id"].decode(Int64.self),
            name: try row["name"].decode(String.self), createdAt: try row.date("created_at"),
            lastUsedAt: try row.optionalDate("last_used_at"), expiresAt: try row.optionalDate("expires_at"))
    }
}
