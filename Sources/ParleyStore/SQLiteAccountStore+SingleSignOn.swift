import Foundation
import GRDB
import ParleyCore

extension SQLiteAccountStore: SingleSignOnStore {
    public func user(ssoSubject: String) async throws(StoreError) -> User? {
        try await perform {
            try pool.lookup { db in
                try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT * FROM users WHERE sso_subject = ?"), arguments: [ssoSubject]
                ).map(User.init(row:))
            }
        }
    }

    public func linkSSOSubject(_ subject: String, userID: UserID) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(sql: "UPDATE users SET sso_subject = ? WHERE id = ?")
                    .execute(arguments: [subject, userID])
                guard db.changesCount == 1 else { throw StoreError.notFound }
            }
        }
    }

    public func createSSOUser(email: String, subject: String, allowWhenUsersExist: Bool) async throws(StoreError)
        -> User
    {
        try await perform {
            try await writer.write { db in
                let count = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM users")) ?? 0
                guard count == 0 || allowWhenUsersExist else { throw StoreError.signupClosed }
                var user = try insertUser(db, email: email, passwordHash: User.noPasswordHash, isAdmin: count == 0)
                try db.cachedStatement(sql: "UPDATE users SET sso_subject = ? WHERE id = ?")
                    .execute(arguments: [subject, user.id])
                user.ssoSubject = subject
                return user
            }
        }
    }

    public func setSSOGroups(_ names: [String], userID: UserID) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                var ids: [Int64] = []
                for name in names {
                    try db.cachedStatement(
                        sql: """
                            INSERT INTO user_groups (name, from_sso, created_at) VALUES (?, 1, ?)
                            ON CONFLICT (name) DO UPDATE SET from_sso = 1
                            """
                    ).execute(arguments: [name, StoredDate.now])
                    if let id = try Int64.fetchOne(
                        db.cachedStatement(sql: "SELECT id FROM user_groups WHERE name = ?"), arguments: [name])
                    {
                        ids.append(id)
                    }
                }
                let kept = ids.map(String.init).joined(separator: ",")
                try db.execute(
                    sql: """
                        DELETE FROM group_members WHERE user_id = ?
                        AND group_id IN (SELECT id FROM user_groups WHERE from_sso) AND group_id NOT IN (\(kept))
                        """,
                    arguments: [userID])
                for id in ids {
                    try db.cachedStatement(sql: "INSERT OR IGNORE INTO group_members (group_id, user_id) VALUES (?, ?)")
                        .execute(arguments: [id, userID])
                }
            }
        }
    }
}

extension SQLiteAccountStore {
    public func savePendingSignIn(_ signIn: PendingSignIn, stateDigest: String, now: Date) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(sql: "DELETE FROM pending_sign_ins WHERE expires_at <= ?")
                    .execute(arguments: [StoredDate.rounded(now)])
                try db.cachedStatement(
                    sql: """
                        INSERT INTO pending_sign_ins (state_digest, code_verifier, nonce, next, expires_at)
                        VALUES (?, ?, ?, ?, ?)
                        """
                ).execute(arguments: [
                    stateDigest, signIn.codeVerifier, signIn.nonce, signIn.next, StoredDate.rounded(signIn.expiresAt),
                ])
            }
        }
    }

    public func takePendingSignIn(stateDigest: String, now: Date) async throws(StoreError) -> PendingSignIn? {
        try await perform {
            try await writer.write { db in
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: "DELETE FROM pending_sign_ins WHERE state_digest = ? RETURNING *"),
                    arguments: [stateDigest])
                guard let row else { return nil }
                let signIn = PendingSignIn(
                    codeVerifier: row["code_verifier"], nonce: row["nonce"], next: row["next"],
                    expiresAt: row.date("expires_at"))
                return signIn.expiresAt > now ? signIn : nil
            }
        }
    }
}
