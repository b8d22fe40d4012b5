import Foundation

/// Invite links: an admin makes one (optionally for one email), and it lets one person make an account within
/// `lifetime`, whatever `SignupMode` says. Links are found by their token's digest, which the caller computes.
public struct InviteService: Sendable {
    /// How long an invite can be used: seven days.
    public static let lifetime: TimeInterval = 7 * 24 * 3600
    let store: any InviteStore
    let accounts: AccountService
    /// The clock invites expire by.
    public let now: @Sendable () -> Date

    /// Creates the service; `now` is the clock expiry goes by.
    public init(store: any InviteStore, accounts: AccountService, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.accounts = accounts
        self.now = now
    }

    /// Stores a new invite under `digest`, for `email` when one is given (it must be a valid address), expiring in
    /// `lifetime`; refused while password sign-in is off (an invite makes an account that signs in with a password).
    public func create(digest: String, email: String?, createdBy: UserID) async throws(AccountError) -> Invite {
        guard accounts.passwordSignIn else {
            throw .invalid(
                "Invites make accounts that sign in with a password, and password sign-in is off here: people sign "
                    + "in with single sign-on instead (PARLEY_SIGNUP=sso lets their first sign-in make the account).")
        }
        let email = email?.trimmingCharacters(in: .whitespaces).nilIfEmpty
        if let email, let problem = AccountRules.emailProblem(email) { throw .invalid(problem) }
        return try await accounts.performing {
            try await store.createInvite(
                digest: digest, email: email, createdBy: createdBy, expiresAt: now().addingTimeInterval(Self.lifetime))
        }
    }

    /// The invite under `digest` if it can still be used; otherwise why not.
    public func usableInvite(digest: String) async throws(AccountError) -> Invite {
        guard let invite = try await accounts.performing({ try await store.invite(digest: digest) }) else {
            throw .inviteNotFound
        }
        if invite.usedAt != nil { throw .inviteUsed }
        if invite.expiresAt <= now() { throw .inviteExpired }
        return invite
    }

    /// Makes the account of the invite under `digest` and uses the invite up: the invite's email when it names one
    /// (another is refused), else `email`; both checked as sign-up checks them (`AccountRules` and the per-address
    /// sign-up limit) before the password is hashed.
    public func redeem(digest: String, email: String, password: String, address: String) async throws(AccountError)
        -> User
    {
        let invite = try await usableInvite(digest: digest)
        let typed = email.trimmingCharacters(in: .whitespaces)
        if let invited = invite.email, !typed.isEmpty, typed.lowercased() != invited.lowercased() {
            throw .invalid("This invite is for \(invited): the account must use that email.")
        }
        let email = invite.email ?? typed
        if let problem = AccountRules.emailProblem(email) ?? AccountRules.passwordProblem(password) {
            throw .invalid(problem)
        }
        if let wait = await accounts.signUpThrottle?.admit(key: address) { throw .tooManySignUps(wait: wait) }
        let hash = try await accounts.newPasswordHash(password)
        let made: User?
        do {
            made = try await store.redeemInvite(id: invite.id, email: email, passwordHash: hash, now: now())
        } catch .duplicate {
            throw .emailTaken
        } catch {
            throw accounts.failure(error)
        }
        guard let made else {
            // Used, revoked or expired while the password was hashed: say which, as a fresh look finds it.
            _ = try await usableInvite(digest: digest)
            throw .inviteUsed
        }
        return made
    }

    /// Every invite, newest first.
    public func invites() async throws(AccountError) -> [Invite] {
        try await accounts.performing { try await store.invites() }
    }

    /// Withdraws an unused invite; `.inviteNotFound` when there is none by this id or it was used.
    public func revoke(id: Int64) async throws(AccountError) {
        do {
            try await store.revokeInvite(id: id)
        } catch .notFound {
            throw .inviteNotFound
        } catch {
            throw accounts.failure(error)
        }
    }
}

extension String {
    /// The text, or nil when it is empty.
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
