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
    let hasher: PasswordHasher
    let throttle: LoginThrottle
    let pages: PageRenderer
}
