import Foundation
import GRDB
import ParleyCore

/// Users, sessions and settings in SQLite.
public struct SQLiteAccountStore: AccountStore {
    let pool: DatabasePool
    let writer: GroupCommitWriter

    /// Creates the store over an open database.
    public init(database: ParleyDatabase) {
        pool = database.pool
        writer = database.writer
    }

    public func createUser(email: String, passwordHash: String, isAdmin: Bool) async throws(StoreError) -> User {
        try await perform {
            try await writer.write { db in
                try insertUser(db, email: email, passwordHash: passwordHash, isAdmin: isAdmin)
            }
        }
    }

    public func signUp(email: String, passwordHash: String, allowWhenUsersExist: Bool) async throws(StoreError) -> User
    {
        try await perform {
            try await writer.write { db in
                let count = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM users")) ?? 0
                guard count == 0 || allowWhenUsersExist else { throw StoreError.signupClosed }
                return try insertUser(db, email: email, passwordHash: passwordHash, isAdmin: count == 0)
            }
        }
    }

    public func hasUsers() async throws(StoreError) -> Bool {
        try await perform {
            try pool.lookup { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM users)") ?? false }
        }
    }

    public func user(email: String) async throws(StoreError) -> User? {
        try await perform {
            try pool.lookup { db in
                try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM users WHERE email = ?"), arguments: [email])
                    .map(User.init(row:))
            }
        }
    }

    public func createSession(_ session: Session, origin: SessionOrigin) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                let now = StoredDate.now
                try db.cachedStatement(
                    sql: """
                        INSERT INTO sessions (id, user_id, created_at, expires_at, last_used_at, user_agent, address)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """
                ).execute(arguments: [
                    session.id, session.userID, now, StoredDate(session.expiresAt),
                    StoredDate(session.lastUsedAt ?? now.date),
                    origin.userAgent, origin.address,
                ])
            }
        }
    }

    public func session(id: String, now: Date) async throws(StoreError) -> ActiveSession? {
        try await perform {
            try pool.lookup { db in
                try Row.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT users.*, sessions.expires_at AS session_expires_at,
                            sessions.last_used_at AS session_last_used_at FROM sessions
                            JOIN users ON users.id = sessions.user_id
                            WHERE sessions.id = ? AND sessions.expires_at > ?
                            """), arguments: [id, StoredDate(now)]
                ).map { row in
                    let user = User(row: row)
                    let session = Session(
                        id: id, userID: user.id, expiresAt: row.date("session_expires_at"),
                        lastUsedAt: row.optionalDate("session_last_used_at"))
                    return ActiveSession(session: session, user: user)
                }
            }
        }
    }

    public func deleteSession(id: String) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(sql: "DELETE FROM sessions WHERE id = ?").execute(arguments: [id])
            }
        }
    }

    public func deleteSessions(userID: UserID) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(sql: "DELETE FROM sessions WHERE user_id = ?").execute(arguments: [userID])
            }
        }
    }

    public func deleteUser(id: UserID) async throws(StoreError) -> [ConversationID] {
        try await perform {
            try await writer.write { db in
                let conversations = try ConversationID.fetchAll(
                    db.cachedStatement(sql: "SELECT id FROM conversations WHERE user_id = ?"),
                    arguments: [id])
                try db.cachedStatement(sql: "DELETE FROM users WHERE id = ?").execute(arguments: [id])
                if db.changesCount == 0 { throw StoreError.notFound }
                return conversations
            }
        }
    }

    public func setting(_ key: String, orInsert makeValue: @escaping @Sendable () -> String) async throws(StoreError)
        -> String
    {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(sql: "INSERT OR IGNORE INTO settings (key, value) VALUES (?, ?)").execute(
                    arguments: [key, makeValue()])
                return try String.fetchOne(
                    db.cachedStatement(sql: "SELECT value FROM settings WHERE key = ?"), arguments: [key]) ?? ""
            }
        }
    }

    /// Inserts an account row and returns it.
    func insertUser(_ db: Database, email: String, passwordHash: String, isAdmin: Bool) throws -> User {
        let now = StoredDate.now
        try db.cachedStatement(
            sql: "INSERT INTO users (email, password_hash, is_admin, created_at) VALUES (?, ?, ?, ?)"
        ).execute(arguments: [email, passwordHash, isAdmin, now])
        return User(
            id: db.lastInsertedRowID, email: email, passwordHash: passwordHash, isAdmin: isAdmin, isDisabled: false,
            createdAt: now.date)
    }
}
