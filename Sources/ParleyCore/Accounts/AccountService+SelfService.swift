import Foundation

/// What people change of their own account: their password and their display name.
extension AccountService {
    /// Changes `user`'s password once `current` is confirmed, and signs out every session of theirs but
    /// `keptSessionID`. An account without a password (single sign-on) is refused first; a wrong current password
    /// counts as a failed sign-in from `address` (`LoginThrottle`), which may refuse the next tries for a while; the new
    /// one must meet `AccountRules`. Nothing changes unless all of it holds.
    public func changePassword(
        of user: User, current: String, new: String, keepingSession keptSessionID: String, address: String
    ) async throws(AccountError) {
        guard user.hasPassword else { throw .noPassword }
        if let wait = await signInThrottle.retryAfter(email: user.email, address: address) {
            throw .tooManySignIns(wait: wait)
        }
        if let problem = AccountRules.passwordProblem(new) { throw .invalid(problem) }
        guard try await performing({ try await hasher.verify(current, hash: user.passwordHash) }) else {
            await signInThrottle.recordFailure(email: user.email, address: address)
            throw .wrongPassword
        }
        let hash = try await performing { try await hasher.hash(new) }
        try await performing {
            try await accounts.changePasswordHash(hash, userID: user.id, keepingSession: keptSessionID)
        }
    }

    /// Sets the name a user is shown by, trimmed and checked against `AccountRules`; nil shows their email again.
    /// Returns the name stored.
    @discardableResult
    public func setDisplayName(_ text: String?, userID: UserID) async throws(AccountError) -> String? {
        let name = text?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let name, let problem = AccountRules.displayNameProblem(name) { throw .invalidDisplayName(problem) }
        try await performing { try await accounts.setDisplayName(name, userID: userID) }
        return name
    }
}
