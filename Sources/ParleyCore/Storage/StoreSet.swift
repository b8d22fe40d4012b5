/// What the server asks of the database itself, whichever it is: whether it answers, how many writes wait, and
/// closing it at the end.
public protocol DatabaseHandle: Sendable {
    /// Whether the database answers a trivial query.
    func ping() async -> Bool
    /// The writes waiting for a transaction to take them (SQLite's group commit; none elsewhere).
    var waitingWrites: Int { get }
    /// Closes the database once nothing uses it any more; a failure is the text for the log.
    func release() async -> String?
}

/// Every store Parley keeps its data in, over one database (SQLite or PostgreSQL), the database itself, and what the
/// instances that may share it share besides: the relay of their replies and the throttles' ledger (none and this
/// process's memory for SQLite, which one instance serves).
public struct StoreSet: Sendable {
    public var accounts: any SingleSignOnStore & UserAdminStore & InviteStore
    public var chat: any ChatStore
    public var apiCompletions: any APICompletionStore
    public var apiKeys: any APIKeyStore
    public var shares: any ShareStore
    public var documents: any DocumentStore
    public var knowledge: any KnowledgeStore
    public var assistants: any AssistantStore
    public var prompts: any PromptStore
    public var groups: any GroupStore
    public var usage: any UsageStore
    public var toolChoices: any ToolChoiceStore
    public var database: any DatabaseHandle
    public var relay: (any ReplyRelay)?
    public var throttles: any ThrottleLedger

    /// Gathers the stores of one database.
    public init(
        accounts: any SingleSignOnStore & UserAdminStore & InviteStore, chat: any ChatStore,
        apiCompletions: any APICompletionStore, apiKeys: any APIKeyStore, shares: any ShareStore,
        documents: any DocumentStore, knowledge: any KnowledgeStore, assistants: any AssistantStore,
        prompts: any PromptStore, groups: any GroupStore, usage: any UsageStore, toolChoices: any ToolChoiceStore,
        database: any DatabaseHandle, relay: (any ReplyRelay)? = nil,
        throttles: any ThrottleLedger = MemoryThrottleLedger()
    ) {
        self.accounts = accounts
        self.chat = chat
        self.apiCompletions = apiCompletions
        self.apiKeys = apiKeys
        self.shares = shares
        self.documents = documents
        self.knowledge = knowledge
        self.assistants = assistants
        self.prompts = prompts
        self.groups = groups
        self.usage = usage
        self.toolChoices = toolChoices
        self.database = database
        self.relay = relay
        self.throttles = throttles
    }
}
