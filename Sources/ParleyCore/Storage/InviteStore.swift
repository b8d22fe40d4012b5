import Foundation

/// Invites to make an account, found by the digest of their token.
public protocol InviteStore: Sendable {
    /// Stores a new invite.
    func createInvite(digest: String, email: String?, createdBy: UserID, expiresAt: Date) async throws(StoreError)
        -> Invite
    /// The invite stored under this digest, used or not.
    func invite(digest: String) async throws(StoreError) -> Invite?
    /// Every invite, newest first.
    func invites() async throws(StoreError) -> [Invite]
    /// Deletes an unused invite; `.notFound` when there is none by this id or it was used.
    func revokeInvite(id: Int64) async throws(StoreError)
    /// Creates the account of an invite and marks the invite used by it, in one transaction, if the invite is still
    /// unused and unexpired at `now` (nil otherwise: it was used or revoked meanwhile); `.duplicate` when the email is
    /// taken.
    func redeemInvite(id: Int64, email: String, passwordHash: String, now: Date) async throws(StoreError) -> User?
}
