import ParleyCore
import ParleyDocuments

/// Everything the controllers need, built once at start-up.
struct AppServices: Sendable {
    let settings: ServerSettings
    /// Every store, over the one database.
    let stores: StoreSet
    let accounts: any AccountStore
    let chat: ChatService
    let shares: ShareService
    let sessions: SessionAuthority
    /// CSRF tokens bound to sessions, keyed from the session secret.
    let csrf: CSRFTokens
    /// Sign-in, sign-up and password rules.
    let accountService: AccountService
    let pages: PageRenderer
    /// Single sign-on's routes, when an identity provider is configured.
    let singleSignOn: SingleSignOnController?
    /// The event streams each user holds open (`PARLEY_MAX_STREAMS_PER_USER`).
    let eventStreams: EventStreamLimit
    /// Takes uploaded documents and reads them off the request path.
    let documentIntake: DocumentIntake
    /// The documents' store.
    let documents: any DocumentStore
    /// The MCP servers' tools, when any is configured.
    let tools: (any ToolRunner)?
    /// The admin's choices for them.
    let toolChoices: any ToolChoiceStore
}
