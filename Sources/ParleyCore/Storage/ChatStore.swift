import Foundation

/// The user message and assistant placeholder written together when a reply starts.
public struct Exchange: Sendable, Equatable {
    public var userMessage: Message?
    public var assistantMessage: Message
    /// What the reply answers, oldest first: the conversation's messages before the placeholder, as `beginExchange`
    /// read them in its transaction. An exchange looked up by its request id has none.
    public var history: [HistoryMessage]

    /// Creates an exchange.
    public init(userMessage: Message?, assistantMessage: Message, history: [HistoryMessage] = []) {
        self.userMessage = userMessage
        self.assistantMessage = assistantMessage
        self.history = history
    }
}

/// Where a new exchange joins a conversation's tree.
public enum ExchangeAnchor: Sendable, Equatable {
    /// A new question after the conversation's current leaf.
    case currentLeaf
    /// A new version of this user message: the question becomes its sibling.
    case newVersion(of: MessageID)
    /// No new question: another reply to this user message, a sibling of its earlier replies.
    case reply(to: MessageID)
}

/// Which messages of a conversation to read.
public enum BranchSelection: Sendable, Equatable {
    /// The branch from the root to the current leaf, each message with its versions.
    case current
    /// Every message of the tree, oldest first.
    case all
}

/// The partial state of a running reply that a progress save writes: its text, and its reasoning if it showed any.
public struct ReplyProgress: Sendable, Equatable {
    public var content: String
    public var reasoning: String?

    /// Creates a progress value.
    public init(content: String, reasoning: String? = nil) {
        self.content = content
        self.reasoning = reasoning
    }
}

/// The final state of a reply.
public struct ReplyOutcome: Sendable, Equatable {
    public var content: String
    /// The model's reasoning, nil when it showed none.
    public var reasoning: String?
    /// How long the model reasoned, in milliseconds; nil when it showed no reasoning.
    public var reasoningMilliseconds: Int?
    public var status: MessageStatus
    public var usage: Usage
    public var failure: FailureReason?
    /// How to charge the reply; without it the usage is stored as given and not counted in the rollup.
    public var pricing: ReplyPricing?
    /// The numbered sources the reply was given.
    public var sources: [DocumentSource]
    /// The input tokens that were its sources' text.
    public var documentTokens: Int
    /// The tool calls the reply made, with how each went.
    public var toolSteps: [ToolStep]

    /// Creates an outcome.
    public init(
        content: String, reasoning: String? = nil, reasoningMilliseconds: Int? = nil, status: MessageStatus,
        usage: Usage, failure: FailureReason? = nil, pricing: ReplyPricing? = nil, sources: [DocumentSource] = [],
        documentTokens: Int = 0, toolSteps: [ToolStep] = []
    ) {
        self.toolSteps = toolSteps
        self.sources = sources
        self.documentTokens = documentTokens
        self.content = content
        self.reasoning = reasoning
        self.reasoningMilliseconds = reasoningMilliseconds
        self.status = status
        self.usage = usage
        self.failure = failure
        self.pricing = pricing
    }
}

/// Conversations and messages, always scoped by their owner.
public protocol ChatStore: AttachmentStore {
    /// Creates a conversation, started with `assistant` when given.
    func createConversation(
        userID: UserID, title: String, model: String, systemPrompt: String, options: GenerationOptions,
        assistant: AssistantReference?
    ) async throws(StoreError) -> Conversation
    /// The conversation if it belongs to the user.
    func conversation(id: ConversationID, userID: UserID) async throws(StoreError) -> Conversation?
    /// The user's archived or other conversations, pinned ones first, then newest activity first, strictly after the
    /// cursor conversation.
    func conversations(userID: UserID, before: ConversationID?, limit: Int, archived: Bool) async throws(StoreError)
        -> Page<Conversation>
    /// Renames a conversation; `.notFound` when it is not the user's.
    func renameConversation(id: ConversationID, userID: UserID, title: String) async throws(StoreError)
    /// Renames a conversation only while its title is still `current` (nobody renamed it meanwhile); returns whether it
    /// did.
    func retitleConversation(id: ConversationID, userID: UserID, from current: String, to title: String)
        async throws(StoreError) -> Bool
    /// Changes a conversation's model, system prompt and generation options; `.notFound` when it is not the user's.
    func configureConversation(
        id: ConversationID, userID: UserID, model: String, systemPrompt: String, options: GenerationOptions
    ) async throws(StoreError)
    /// Sets which MCP servers' tools a conversation's replies may call (nil: those on by default); `.notFound` when it
    /// is not the user's.
    func setToolServers(_ servers: [String]?, conversationID: ConversationID, userID: UserID) async throws(StoreError)
    /// Deletes a conversation and its messages; `.notFound` when it is not the user's.
    func deleteConversation(id: ConversationID, userID: UserID) async throws(StoreError)
    /// Pins or unpins a conversation; `.notFound` when it is not the user's.
    func setPinned(_ pinned: Bool, id: ConversationID, userID: UserID) async throws(StoreError)
    /// Archives or unarchives a conversation; `.notFound` when it is not the user's.
    func setArchived(_ archived: Bool, id: ConversationID, userID: UserID) async throws(StoreError)
    /// The user's messages and titles matching a search typed by the user (any text: it is never run as query syntax),
    /// best first.
    func search(userID: UserID, text: String, limit: Int) async throws(StoreError) -> [SearchHit]
    /// The user's conversations with their messages, oldest first: all of them, or only `conversationID` (none when it
    /// is not the user's).
    func transcripts(userID: UserID, conversationID: ConversationID?) async throws(StoreError)
        -> [ConversationTranscript]
    /// Stores transcripts as new conversations of the user (their ids are ignored), all or nothing; returns the new
    /// conversations.
    func importTranscripts(_ transcripts: [ConversationTranscript], userID: UserID) async throws(StoreError)
        -> [Conversation]
    /// The messages of `branch` in order, strictly after `afterID`.
    func messages(
        conversationID: ConversationID, userID: UserID, branch: BranchSelection, afterID: MessageID?, limit: Int
    ) async throws(StoreError) -> Page<Message>
    /// Makes the branch through `messageID` current, down to the latest leaf under it; returns that leaf.
    /// `.notFound` when the message is not in the user's conversation.
    func selectBranch(conversationID: ConversationID, userID: UserID, messageID: MessageID) async throws(StoreError)
        -> MessageID
    /// Deletes a message and everything under it; when the current leaf was among them, the branch of its parent
    /// becomes current. `.notFound` when the message is not in the user's conversation.
    func deleteMessage(conversationID: ConversationID, userID: UserID, messageID: MessageID) async throws(StoreError)
    /// One message of the user's.
    func message(id: MessageID, userID: UserID) async throws(StoreError) -> Message?
    /// The exchange that a send with this request id created, if any.
    func exchange(conversationID: ConversationID, requestID: String) async throws(StoreError) -> Exchange?
    /// Writes the user message (if any) with its images and documents (read ones of the user's waiting in this
    /// conversation, else `.notFound`) and an empty streaming assistant message in one transaction,
    /// where `anchor` says, and makes the reply the current leaf; its history is the branch from the root to the
    /// question. `.notFound` when the anchor is not a user message of the conversation; `.duplicate` when the request
    /// id was used already in this conversation. When the owner has a monthly budget,
    /// the same transaction refuses with `.budgetExceeded` once this month's spend reaches it, and with
    /// `.budgetReplyRunning` while another reply of theirs is streaming (so they cannot overspend by more than one
    /// reply).
    func beginExchange(
        conversationID: ConversationID, userContent: String?, images: [NewImage], documents: [DocumentID],
        requestID: String?, model: String, anchor: ExchangeAnchor
    ) async throws(StoreError) -> Exchange
    /// Saves the partial text and reasoning of running replies, in short transactions that let other writes go in
    /// between; after an error, some of them may be saved.
    func saveProgress(_ replies: [MessageID: ReplyProgress]) async throws(StoreError)
    /// Saves the tool steps of a running reply, so that a page loaded while it runs shows them.
    func saveToolSteps(_ steps: [ToolStep], messageID: MessageID) async throws(StoreError)
    /// Saves the final state of a reply. With `outcome.pricing`, the same transaction charges it at the model's current
    /// price version (started from the list price when the model has none) and adds it to the day's usage rollup.
    /// Returns the usage as stored, cost included.
    @discardableResult
    func finishReply(id: MessageID, outcome: ReplyOutcome) async throws(StoreError) -> Usage
    /// Charges a title request's usage to its conversation and its owner's rollup, marked as a title's; returns the
    /// usage with its cost.
    @discardableResult
    func chargeTitle(conversationID: ConversationID, usage: Usage, pricing: ReplyPricing) async throws(StoreError)
        -> Usage
    /// The user's spend this month (UTC) and their monthly budget (their own, else the default), from the rollup.
    func budgetStatus(userID: UserID) async throws(StoreError) -> BudgetStatus
    /// The models the user may use, by the groups that restrict models and the user's own groups.
    func modelAccess(userID: UserID) async throws(StoreError) -> ModelAccess
    /// Marks every reply left `streaming` (by a crash) as `interrupted`; returns how many.
    func interruptUnfinishedReplies() async throws(StoreError) -> Int
}

extension ChatStore {
    /// `beginExchange` for a message without documents.
    public func beginExchange(
        conversationID: ConversationID, userContent: String?, images: [NewImage], requestID: String?,
        model: String, anchor: ExchangeAnchor
    ) async throws(StoreError) -> Exchange {
        try await beginExchange(
            conversationID: conversationID, userContent: userContent, images: images, documents: [],
            requestID: requestID, model: model, anchor: anchor)
    }

    /// Writes a text-only user message after the current leaf and an empty streaming reply in one transaction.
    public func beginExchange(
        conversationID: ConversationID, userContent: String?, images: [NewImage] = [], requestID: String?,
        model: String
    ) async throws(StoreError) -> Exchange {
        try await beginExchange(
            conversationID: conversationID, userContent: userContent, images: images, documents: [],
            requestID: requestID, model: model, anchor: .currentLeaf)
    }

    /// Saves the partial text of running replies that showed no reasoning.
    public func saveProgress(_ contents: [MessageID: String]) async throws(StoreError) {
        try await saveProgress(contents.mapValues { ReplyProgress(content: $0) })
    }

    /// The current branch's messages in order, strictly after `afterID`.
    public func messages(conversationID: ConversationID, userID: UserID, afterID: MessageID?, limit: Int)
        async throws(StoreError) -> Page<Message>
    {
        try await messages(
            conversationID: conversationID, userID: userID, branch: .current, afterID: afterID, limit: limit)
    }

    /// The user's conversations that are not archived, pinned ones first, then newest activity first.
    public func conversations(userID: UserID, before: ConversationID?, limit: Int) async throws(StoreError) -> Page<
        Conversation
    > {
        try await conversations(userID: userID, before: before, limit: limit, archived: false)
    }
}

extension ChatStore {
    /// Creates a conversation with no generation options of its own.
    public func createConversation(userID: UserID, title: String, model: String, systemPrompt: String)
        async throws(StoreError) -> Conversation
    {
        try await createConversation(
            userID: userID, title: title, model: model, systemPrompt: systemPrompt, options: GenerationOptions(),
            assistant: nil)
    }
}
