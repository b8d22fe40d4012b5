import Logging

/// Signing in and creating accounts: who may sign up, what an email and a password must be, and how guessing is
/// slowed. The one place these rules live; sign-in pages, the API, admin pages and the command line all call it.
public struct AccountService: Sendable {
    public let accounts: any AccountStore
    let hasher: any PasswordHashing
    /// Who may create an account through sign-up.
    public let signupMode: SignupMode
    let signInThrottle: LoginThrottle
    /// Sign-ups one address may make (each hashes a password) within a window; nil: unlimited.
    let signUpThrottle: SlidingWindowLimiter?
    /// Whether everybody may sign in with a password, or admins alone (the others use single sign-on).
    let passwordSignIn: Bool
    let logger: Logger

    /// Creates the service.
    public init(
        accounts: any AccountStore, hasher: any PasswordHashing, signupMode: SignupMode,
        signInThrottle: LoginThrottle = LoginThrottle(), signUpThrottle: SlidingWindowLimiter?,
        passwordSignIn: Bool = true, logger: Logger
    ) {
        self.accounts = accounts
        self.hasher = hasher
        self.signupMode = signupMode
        self.signInThrottle = signInThrottle
        self.signUpThrottle = signUpThrottle
        self.passwordSignIn = passwordSignIn
        self.logger = logger
    }

    /// The account whose email and password these are, from `address`: throttled per address and per account
    /// (`LoginThrottle`), and refused alike whether or not the email exists, taking a password check's time either way;
    /// with password sign-in off, a right password of anyone but an admin is refused as such.
    public func authenticate(email: String, password: String, address: String) async throws(AccountError) -> User {
        if let wait = await signInThrottle.retryAfter(email: email, address: address) {
            throw .tooManySignIns(wait: wait)
        }
        // SQLite reads a bound string up to its first NUL: "a@b.c\0x" would find a@b.c under a throttle key of its own.
        let user =
            email.unicodeScalars.contains("\0")
            ? nil : try await performing { try await accounts.user(email: email) }
        let matches = try await performing { try await hasher.verify(password, hash: user?.passwordHash) }
        guard let user, matches, !user.isDisabled else {
            await signInThrottle.recordFailure(email: email, address: address)
            throw .invalidCredentials
        }
        guard passwordSignIn || user.isAdmin else { throw .passwordSignInOff }
        return user
    }

    /// Creates an account through sign-up from `address`: refused while sign-up is closed before anything costly,
    /// then checked against `AccountRules` and the per-address sign-up limit before its password is hashed.
    public func signUp(email: String, password: String, address: String) async throws(AccountError) -> User {
        guard try await isSignupOpen() else { throw .signupClosed }
        if let problem = AccountRules.emailProblem(email) ?? AccountRules.passwordProblem(password) {
            throw .invalid(problem)
        }
        if let wait = await signUpThrottle?.admit(key: address) { throw .tooManySignUps(wait: wait) }
        let hash = try await performing { try await hasher.hash(password) }
        do {
            return try await accounts.signUp(email: email, passwordHash: hash, allowWhenUsersExist: signupMode == .open)
        } catch .duplicate {
            throw .emailTaken
        } catch .signupClosed {
            throw .signupClosed
        } catch {
            throw failure(error)
        }
    }

    /// Whether sign-up may create an account with a password now: `open`, or `first-user` while there is no account;
    /// never while password sign-in is off.
    public func isSignupOpen() async throws(AccountError) -> Bool {
        switch signupMode {
        case .open: passwordSignIn
        case .firstUser: passwordSignIn ? try await performing { try await !accounts.hasUsers() } : false
        case .sso, .closed: false
        }
    }

    /// The hash of a new password an admin sets or the command line creates an account with, once it meets
    /// `AccountRules`.
    public func newPasswordHash(_ password: String) async throws(AccountError) -> String {
        if let problem = AccountRules.passwordProblem(password) { throw .invalid(problem) }
        return try await performing { try await hasher.hash(password) }
    }

    /// Runs a storage or hashing step, logging its failure as `.failed`.
    func performing<T>(_ step: () async throws -> T) async throws(AccountError) -> T {
        do {
            return try await step()
        } catch {
            throw failure(error)
        }
    }

    /// Logs a storage or hashing failure and returns the refusal it becomes.
    func failure(_ error: any Error) -> AccountError {
        logger.error("an account step failed", metadata: ["error": "\(error)"])
        return .failed
    }
}
