import ParleyCore
import ParleyStore

/// Everything the controllers need, built once at start-up.
struct AppServices: Sendable {
    let settings: ServerSettings
    let database: ParleyDatabase
    let accounts: any AccountStore
    let chat: ChatService
    let shares: ShareService
    let sessions: SessionAuthority
    /// CSRF tokens bound to sessions, keyed from the session secret.
    let csrf: CSRFTokens
    let hasher: PasswordHasher
    let throttle: LoginThrottle
    /// Sign-ups one address may make (each one hashes a password) within 5 minutes; nil: unlimited.
    let signupThrottle: SlidingWindowLimiter?
    let pages: PageRenderer
    /// The event streams each user holds open (`PARLEY_MAX_STREAMS_PER_USER`).
    let eventStreams: EventStreamLimit
}
