import Foundation

/// The accounts single sign-on finds, links and creates, the groups it copies from the identity provider, and the
/// sign-ins on their way through it.
public protocol SingleSignOnStore: AccountStore {
    /// The account linked to the provider's subject, if any.
    func user(ssoSubject: String) async throws(StoreError) -> User?
    /// Links the account to the provider's subject.
    func linkSSOSubject(_ subject: String, userID: UserID) async throws(StoreError)
    /// Creates an account without a password, linked to the subject; the first account becomes admin. Throws
    /// `.signupClosed` when accounts exist and `allowWhenUsersExist` is false, `.duplicate` when the email is taken.
    func createSSOUser(email: String, subject: String, allowWhenUsersExist: Bool) async throws(StoreError) -> User
    /// Makes the user's provider groups exactly `names`, creating the groups that are new; groups made in Parley keep
    /// their members.
    func setSSOGroups(_ names: [String], userID: UserID) async throws(StoreError)
    /// Makes the user an admin or not.
    func setAdmin(_ isAdmin: Bool, userID: UserID) async throws(StoreError)
    /// Keeps a sign-in on its way through the identity provider under its state's digest, dropping those expired by
    /// `now`.
    func savePendingSignIn(_ signIn: PendingSignIn, stateDigest: String, now: Date) async throws(StoreError)
    /// Takes the sign-in kept under the digest, so that it cannot be finished twice; nil when unknown, taken, or
    /// expired by `now`.
    func takePendingSignIn(stateDigest: String, now: Date) async throws(StoreError) -> PendingSignIn?
}
