import Foundation
import Logging
import ParleyCore
import PostgresNIO

/// Users, sessions and settings in PostgreSQL.
public struct PostgresAccountStore: AccountStore {
    let client: PostgresClient
    let logger: Logger

    /// Creates the store over a database.
    public init(database: PostgresStorage) {
        client = database.client
        logger = database.logger
    }

    public func createUser(email: String, passwordHash: String, isAdmin: Bool) async throws(StoreError) -> User {
        try await perform {
            try await insertUser(
                email: email, passwordHash: passwordHash, isAdmin: isAdmin,
                on: { try await client.query($0, logger: $1) })
        }
    }

    public func signUp(email: String, passwordHash: String, allowWhenUsersExist: Bool) async throws(StoreError) -> User
    {
        try await perform {
            try await client.withTransaction(logger: logger) { connection in
                let isFirst = try await claimFirstAccount(on: connection, allowWhenUsersExist: allowWhenUsersExist)
                return try await insertUser(
                    email: email, passwordHash: passwordHash, isAdmin: isFirst,
                    on: { try await connection.query($0, logger: $1) })
            }
        }
    }

    public func hasUsers() async throws(StoreError) -> Bool {
        try await perform {
            try await client.query("SELECT EXISTS (SELECT 1 FROM users)", logger: logger).rows().first?[0]
                .decode(Bool.self) ?? false
        }
    }

    public func user(email: String) async throws(StoreError) -> User? {
        try await perform {
            try await client.query(
                "SELECT * FROM users WHERE lower(email) = lower(\(email))", logger: logger
            ).rows().first.map(User.init(row:))
        }
    }

    public func createSession(_ session: Session, origin: SessionOrigin) async throws(StoreError) {
        let now = StoredMoment.now
        let expires = StoredMoment.rounded(session.expiresAt)
        let lastUsed = StoredMoment.rounded(session.lastUsedAt ?? now)
        try await perform {
            try await client.query(
                """
                INSERT INTO sessions (id, user_id, created_at, expires_at, last_used_at, user_agent, address)
                VALUES (\(session.id), \(session.userID), \(now), \(expires), \(lastUsed), \(origin.userAgent),
                \(origin.address))
                """, logger: logger)
        }
    }

    public func session(id: String, now: Date) async throws(StoreError) -> ActiveSession? {
        try await perform {
            try await client.query(
                """
                SELECT users.*, sessions.expires_at AS session_expires_at,
                sessions.last_used_at AS session_last_used_at
                FROM sessions JOIN users ON users.id = sessions.user_id
                WHERE sessions.id = \(id) AND sessions.expires_at > \(now)
                """, logger: logger
            ).rows().first.map { row in
                let user = try User(row: row)
                let session = Session(
                    id: id, userID: user.id, expiresAt: try row.date("session_expires_at"),
                    lastUsedAt: try row.optionalDate("session_last_used_at"))
                return ActiveSession(session: session, user: user)
            }
        }
    }

    public func touchSession(id: String, at date: Date) async throws(StoreError) {
        let date = StoredMoment.rounded(date)
        try await perform {
            try await client.query("UPDATE sessions SET last_used_at = \(date) WHERE id = \(id)", logger: logger)
        }
    }

    public func sessions(userID: UserID, now: Date) async throws(StoreError) -> [SessionDetails] {
        try await perform {
            try await client.query(
                """
                SELECT id, created_at, last_used_at, expires_at, user_agent, address FROM sessions
                WHERE user_id = \(userID) AND expires_at > \(now)
                ORDER BY COALESCE(last_used_at, created_at) DESC, created_at DESC
                """, logger: logger
            ).rows().map { row in
                SessionDetails(
                    id: try row["id"].decode(String.self), createdAt: try row.date("created_at"),
                    lastUsedAt: try row.optionalDate("last_used_at"), expiresAt: try row.date("expires_at"),
                    origin: SessionOrigin(
                        userAgent: try row["user_agent"].decode(String?.self),
                        address: try row["address"].decode(String?.self)))
            }
        }
    }

    public func deleteSession(id: String) async throws(StoreError) {
        try await perform {
            try await client.query("DELETE FROM sessions WHERE id = \(id)", logger: logger)
        }
    }

    public func deleteSession(id: String, userID: UserID) async throws(StoreError) {
        try await perform {
            let deleted = try await client.query(
                "DELETE FROM sessions WHERE id = \(id) AND user_id = \(userID) RETURNING 1", logger: logger
            ).rows()
            guard deleted.count == 1 else { throw StoreError.notFound }
        }
    }

    public func deleteSessions(userID: UserID) async throws(StoreError) {
        try await perform {
            try await client.query("DELETE FROM sessions WHERE user_id = \(userID)", logger: logger)
        }
    }

    public func changePasswordHash(_ hash: String, userID: UserID, keepingSession keptSessionID: String)
        async throws(StoreError)
    {
        try await perform {
            try await client.withTransaction(logger: logger) { connection in
                let changed = try await connection.query(
                    "UPDATE users SET password_hash = \(hash) WHERE id = \(userID) RETURNING 1", logger: logger
                ).rows()
                guard changed.count == 1 else { throw StoreError.notFound }
                try await connection.query(
                    "DELETE FROM sessions WHERE user_id = \(userID) AND id <> \(keptSessionID)", logger: logger)
            }
        }
    }

    public func setDisplayName(_ name: String?, userID: UserID) async throws(StoreError) {
        try await perform {
            let changed = try await client.query(
                "UPDATE users SET display_name = \(name) WHERE id = \(userID) RETURNING 1", logger: logger
            ).rows()
            guard changed.count == 1 else { throw StoreError.notFound }
        }
    }

    public func deleteUser(id: UserID) async throws(StoreError) -> [ConversationID] {
        try await perform {
            try await client.withTransaction(logger: logger) { connection in
                let conversations = try await connection.query(
                    "SELECT id FROM conversations WHERE user_id = \(id) ORDER BY id", logger: logger
                ).rows().map { try $0["id"].decode(Int64.self) }
                let deleted = try await connection.query(
                    "DELETE FROM users WHERE id = \(id) RETURNING 1", logger: logger
                ).rows()
                guard deleted.count == 1 else { throw StoreError.notFound }
                return conversations
            }
        }
    }

    public func setting(_ key: String, orInsert makeValue: @escaping @Sendable () -> String) async throws(StoreError)
        -> String
    {
        try await perform {
            try await client.query(
                "INSERT INTO settings (key, value) VALUES (\(key), \(makeValue())) ON CONFLICT (key) DO NOTHING",
                logger: logger)
            return try await client.query("SELECT value FROM settings WHERE key = \(key)", logger: logger).rows()
                .first?["value"].decode(String.self) ?? ""
        }
    }

    /// Whether the account the transaction on `connection` is about to make is the first; the transaction holds other
    /// sign-ups back until it ends, so that of accounts made at once on an empty database one alone is the first.
    /// `.signupClosed` when accounts exist and `allowWhenUsersExist` is false.
    func claimFirstAccount(on connection: PostgresConnection, allowWhenUsersExist: Bool) async throws -> Bool {
        try await connection.query("LOCK TABLE users IN SHARE ROW EXCLUSIVE MODE", logger: logger)
        let existing =
            try await connection.query("SELECT EXISTS (SELECT 1 FROM users)", logger: logger).rows()
            .first?[0].decode(Bool.self) ?? false
        guard !existing || allowWhenUsersExist else { throw StoreError.signupClosed }
        return !existing
    }

    /// Inserts an account row with `run` (the pool's or a transaction's connection) and returns it.
    func insertUser(
        email: String, passwordHash: String, isAdmin: Bool,
        on run: (PostgresQuery, Logger) async throws -> PostgresRowSequence
    ) async throws -> User {
        let now = StoredMoment.now
        let id =
            try await run(
                """
                INSERT INTO users (email, password_hash, is_admin, created_at)
                VALUES (\(email), \(passwordHash), \(isAdmin), \(now)) RETURNING id
                """, logger
            ).rows().first?["id"].decode(Int64.self) ?? 0
        return User(
            id: id, email: email, passwordHash: passwordHash, isAdmin: isAdmin, isDisabled: false, createdAt: now)
    }
}
