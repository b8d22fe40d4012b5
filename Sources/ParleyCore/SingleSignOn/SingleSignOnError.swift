/// Why a single sign-on attempt ended without a session; each case has the sentence the sign-in page shows and a
/// short code that carries it there in the address (never a token or the provider's own text).
public enum SingleSignOnError: Error, Equatable, Sendable, CaseIterable {
    /// The person cancelled at the identity provider, or it refused them.
    case cancelled
    /// The identity provider could not be reached, or answered with something unusable.
    case unavailable
    /// The sign-in began too long ago, in another browser, or was finished already.
    case expired
    /// The ID token failed a check: signature, issuer, audience, expiry or nonce.
    case rejected
    /// The provider shared no usable email, which a new or linked account needs.
    case noEmail
    /// An account with this email exists, but the provider has not verified the email, so it is not linked.
    case unverifiedEmail
    /// The account with this email is linked to another identity at the provider.
    case linkedElsewhere
    /// No account exists for this person, and sign-up may not create one.
    case signupClosed
    /// The account is disabled.
    case disabled
    /// Too many sign-ins began from one address in a minute.
    case tooManyAttempts
    /// Storage failed; details are in the logs.
    case failed

    /// The code in the sign-in page's address.
    public var code: String {
        switch self {
        case .cancelled: "cancelled"
        case .unavailable: "unavailable"
        case .expired: "expired"
        case .rejected: "rejected"
        case .noEmail: "no-email"
        case .unverifiedEmail: "unverified-email"
        case .linkedElsewhere: "linked-elsewhere"
        case .signupClosed: "no-account"
        case .disabled: "disabled"
        case .tooManyAttempts: "too-many"
        case .failed: "failed"
        }
    }

    /// The error a code names, if any.
    public init?(code: String) {
        guard let known = Self.allCases.first(where: { $0.code == code }) else { return nil }
        self = known
    }

    /// What the sign-in page tells the person.
    public var message: String {
        switch self {
        case .cancelled: "Single sign-on was cancelled. You can try again."
        case .unavailable:
            "Single sign-on is unavailable right now. Try again in a minute, or ask your administrator."
        case .expired: "That sign-in took too long or was already used. Please start again."
        case .rejected: "The identity provider's answer could not be verified. Please start again."
        case .noEmail: "Your identity provider did not share an email address, which Parley needs."
        case .unverifiedEmail:
            "An account with your email exists, but your identity provider has not verified the email, "
                + "so it was not linked. Ask your administrator."
        case .linkedElsewhere: "The account with your email is linked to another single sign-on identity."
        case .signupClosed: "There is no Parley account for you yet, and sign-up is closed. Ask your administrator."
        case .disabled: "This account is disabled."
        case .tooManyAttempts: "Too many sign-ins were started from your address. Wait a minute, then try again."
        case .failed: "Something went wrong while signing you in. Please try again."
        }
    }
}
