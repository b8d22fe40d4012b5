import Foundation
import ParleyCore
import PostgresNIO

/// The accounts single sign-on finds, links and creates, and the groups it copies, in PostgreSQL.
extension PostgresAccountStore: SingleSignOnStore {
    public func user(ssoSubject: String) async throws(StoreError) -> User? {
        try await perform {
            try await client.query("SELECT * FROM users WHERE sso_subject = \(ssoSubject)", logger: logger).rows()
                .first.map(User.init(row:))
        }
    }

    public func linkSSOSubject(_ subject: String, userID: UserID) async throws(StoreError) {
        try await perform {
            let linked = try await client.query(
                "UPDATE users SET sso_subject = \(subject) WHERE id = \(userID) RETURNING 1", logger: logger
            ).rows()
            guard linked.count == 1 else { throw StoreError.notFound }
        }
    }

    public func createSSOUser(email: String, subject: String, allowWhenUsersExist: Bool) async throws(StoreError)
        -> User
    {
        try await perform {
            try await client.withTransaction(logger: logger) { connection in
                let isFirst = try await claimFirstAccount(on: connection, allowWhenUsersExist: allowWhenUsersExist)
                var user = try await insertUser(
                    email: email, passwordHash: User.noPasswordHash, isAdmin: isFirst,
                    on: { try await connection.query($0, logger: $1) })
                try await connection.query(
                    "UPDATE users SET sso_subject = \(subject) WHERE id = \(user.id)", logger: logger)
                user.ssoSubject = subject
                return user
            }
        }
    }

    public func setSSOGroups(_ names: [String], userID: UserID) async throws(StoreError) {
        let now = StoredMoment.now
        try await perform {
            try await client.withTransaction(logger: logger) { connection in
                var ids: [Int64] = []
                for name in names {
                    let id = try await connection.query(
                        """
                        INSERT INTO user_groups (name, from_sso, created_at) VALUES (\(name), true, \(now))
                        ON CONFLICT ((lower(name))) DO UPDATE SET from_sso = true RETURNING id
                        """, logger: logger
                    ).rows().first?["id"].decode(Int64.self)
                    if let id { ids.append(id) }
                }
                try await connection.query(
                    """
                    DELETE FROM group_members WHERE user_id = \(userID)
                    AND group_id IN (SELECT id FROM user_groups WHERE from_sso) AND group_id <> ALL(\(ids))
                    """, logger: logger)
                try await connection.query(
                    """
                    INSERT INTO group_members (group_id, user_id) SELECT id, \(userID)::bigint FROM unnest(\(ids)) AS id
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
            }
        }
    }
}

extension PostgresAccountStore {
    public func savePendingSignIn(_ signIn: PendingSignIn, stateDigest: String, now: Date) async throws(StoreError) {
        try await perform {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query(
                    "DELETE FROM pending_sign_ins WHERE expires_at <= \(StoredMoment.rounded(now))", logger: logger)
                try await connection.query(
                    """
                    INSERT INTO pending_sign_ins (state_digest, code_verifier, nonce, next, expires_at)
                    VALUES (\(stateDigest), \(signIn.codeVerifier), \(signIn.nonce), \(signIn.next),
                        \(StoredMoment.rounded(signIn.expiresAt)))
                    """, logger: logger)
            }
        }
    }

    public func takePendingSignIn(stateDigest: String, now: Date) async throws(StoreError) -> PendingSignIn? {
        try await perform {
            guard
                let row = try await client.query(
                    "DELETE FROM pending_sign_ins WHERE state_digest = \(stateDigest) RETURNING *", logger: logger
                ).rows().first
            else { return nil }
            let signIn = PendingSignIn(
                codeVerifier: try row["code_verifier"].decode(String.self), nonce: try row["nonce"].decode(String.self),
                next: try row["next"].decode(String.self), expiresAt: try row.date("expires_at"))
            return signIn.expiresAt > now ? signIn : nil
        }
    }
}
