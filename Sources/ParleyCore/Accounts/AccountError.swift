/// Why an account action was refused.
public enum AccountError: Error, Equatable, Sendable {
    /// The email or the new password breaks `AccountRules`; the message says how.
    case invalid(String)
    /// Sign-up may not create an account now.
    case signupClosed
    /// An account with this email exists already.
    case emailTaken
    /// The email or password is not right (the same whether or not the email exists).
    case invalidCredentials
    /// The password was right, but password sign-in is off for everybody but admins.
    case passwordSignInOff
    /// Too many failed sign-ins: try again after `wait` seconds.
    case tooManySignIns(wait: Int)
    /// Too many sign-ups from one address: try again after `wait` seconds.
    case tooManySignUps(wait: Int)
    /// The current password given to confirm a change is not the account's.
    case wrongPassword
    /// The account has no password to check or change: it signs in with single sign-on.
    case noPassword
    /// The display name breaks `AccountRules`; the message says how.
    case invalidDisplayName(String)
    /// The invite link has been used already.
    case inviteUsed
    /// The invite link is past its expiry.
    case inviteExpired
    /// No invite has this link (it never existed, or an admin revoked it).
    case inviteNotFound
    /// Storage or password hashing failed; details are in the logs.
    case failed
}
