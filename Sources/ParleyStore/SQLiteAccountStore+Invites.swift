import Foundation
import GRDB
import ParleyCore

extension SQLiteAccountStore: InviteStore {
    public func createInvite(digest: String, email: String?, createdBy: UserID, expiresAt: Date)
        async throws(StoreError) -> Invite
    {
        try await perform {
            try await writer.write { db in
                let now = StoredDate.now
                let expiry = StoredDate.rounded(expiresAt)
                try db.cachedStatement(
                    sql: """
                        INSERT INTO invites (token_hash, email, created_by, created_at, expires_at)
                        VALUES (?, ?, ?, ?, ?)
                        """
                ).execute(arguments: [digest, email, createdBy, now, expiry])
                return Invite(
                    id: db.lastInsertedRowID, email: email, createdBy: createdBy, createdAt: now.date,
                    expiresAt: expiry.date)
            }
        }
    }

    public func invite(digest: String) async throws(StoreError) -> Invite? {
        try await perform {
            try pool.lookup { db in
                try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT * FROM invites WHERE token_hash = ?"), arguments: [digest]
                ).map(Invite.init(row:))
            }
        }
    }

    public func invites() async throws(StoreError) -> [Invite] {
        try await perform {
            try pool.lookup { db in
                try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM invites ORDER BY id DESC")).map(
                    Invite.init(row:))
            }
        }
    }

    public func revokeInvite(id: Int64) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(sql: "DELETE FROM invites WHERE id = ? AND used_at IS NULL")
                    .execute(arguments: [id])
                guard db.changesCount == 1 else { throw StoreError.notFound }
            }
        }
    }

    public func redeemInvite(id: Int64, email: String, passwordHash: String, now: Date) async throws(StoreError)
        -> User?
    {
        try await perform {
            try await writer.write { db -> User? in
                // Claimed first, so that of two people using one link at once, one alone gets an account.
                try db.cachedStatement(
                    sql: """
                        UPDATE invites SET used_at = ? WHERE id = ? AND used_at IS NULL AND expires_at > ?
                        AND (email IS NULL OR email = ?)
                        """
                ).execute(arguments: [StoredDate(now), id, StoredDate(now), email])
                guard db.changesCount == 1 else { return nil }
                let user = try insertUser(db, email: email, passwordHash: passwordHash, isAdmin: false)
                try db.cachedStatement(sql: "UPDATE invites SET used_by = ? WHERE id = ?")
                    .execute(arguments: [user.id, id])
                return user
            }
        }
    }
}

extension Invite {
    init(row: Row) {
        self.init(
            id: row["id"], email: row["email"], createdBy: row["created_by"], createdAt: row.date("created_at"),
            expiresAt: row.date("expires_at"), usedAt: row.optionalDate("used_at"), usedBy: row["used_by"])
    }
}
