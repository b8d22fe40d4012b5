import Foundation
import ParleyCore
import PostgresNIO

/// Invites in PostgreSQL, found by the digest of their token.
extension PostgresAccountStore: InviteStore {
    public func createInvite(digest: String, email: String?, createdBy: UserID, expiresAt: Date)
        async throws(StoreError) -> Invite
    {
        let now = StoredMoment.now
        let expiry = StoredMoment.rounded(expiresAt)
        return try await perform {
            let id =
                try await client.query(
                    """
                    INSERT INTO invites (token_hash, email, created_by, created_at, expires_at)
                    VALUES (\(digest), \(email), \(createdBy), \(now), \(expiry)) RETURNING id
                    """, logger: logger
                ).rows().first?["id"].decode(Int64.self) ?? 0
            return Invite(id: id, email: email, createdBy: createdBy, createdAt: now, expiresAt: expiry)
        }
    }

    public func invite(digest: String) async throws(StoreError) -> Invite? {
        try await perform {
            try await client.query("SELECT * FROM invites WHERE token_hash = \(digest)", logger: logger).rows()
                .first.map(Invite.init(row:))
        }
    }

    public func invites() async throws(StoreError) -> [Invite] {
        try await perform {
            try await client.query("SELECT * FROM invites ORDER BY id DESC", logger: logger).rows()
                .map(Invite.init(row:))
        }
    }

    public func revokeInvite(id: Int64) async throws(StoreError) {
        try await perform {
            let deleted = try await client.query(
                "DELETE FROM invites WHERE id = \(id) AND used_at IS NULL RETURNING 1", logger: logger
            ).rows()
            guard deleted.count == 1 else { throw StoreError.notFound }
        }
    }

    public func redeemInvite(id: Int64, email: String, passwordHash: String, now: Date) async throws(StoreError)
        -> User?
    {
        let now = StoredMoment.rounded(now)
        return try await perform {
            try await client.withTransaction(logger: logger) { connection -> User? in
                // Claimed first, so that of two people using one link at once, one alone gets an account.
                let claimed = try await connection.query(
                    """
                    UPDATE invites SET used_at = \(now) WHERE id = \(id) AND used_at IS NULL AND expires_at > \(now)
                    AND (email IS NULL OR lower(email) = lower(\(email))) RETURNING 1
                    """, logger: logger
                ).rows()
                guard claimed.count == 1 else { return nil }
                let user = try await insertUser(
                    email: email, passwordHash: passwordHash, isAdmin: false,
                    on: { try await connection.query($0, logger: $1) })
                try await connection.query(
                    "UPDATE invites SET used_by = \(user.id) WHERE id = \(id)", logger: logger)
                return user
            }
        }
    }
}

extension Invite {
    /// An invite from a row of `invites`.
    init(row: PostgresRandomAccessRow) throws {
        self.init(
            id: try row["id"].decode(Int64.self), email: try row["email"].decode(String?.self),
            createdBy: try row["created_by"].decode(Int64?.self), createdAt: try row.date("created_at"),
            expiresAt: try row.date("expires_at"), usedAt: try row.optionalDate("used_at"),
            usedBy: try row["used_by"].decode(Int64?.self))
    }
}
