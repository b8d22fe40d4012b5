/// A reply to generate: which conversation, which placeholder message, which model.
public struct GenerationJob: Sendable, Equatable {
    public var conversationID: ConversationID
    public var userID: UserID
    public var assistantMessageID: MessageID
    public var systemPrompt: String
    public var model: ModelInfo
    /// The conversation's own generation options (the model's defaults fill in the rest when the request is built).
    public var options: GenerationOptions
    /// For a conversation's first reply: the title it got from the question's first words, which the model may
    /// replace with a better one once the reply is complete.
    public var provisionalTitle: String?
    /// The conversation the reply answers, oldest first (the exchange's history); the reply takes it when it starts.
    public var history: [HistoryMessage]
    /// Whether the reply looks up the knowledge collections of its conversation and its assistant.
    public var usesKnowledge = false
    /// The MCP servers whose tools the reply may call (by id; nil: those on by default).
    public var toolServers: [String]?

    /// Creates a job.
    public init(
        conversationID: ConversationID, userID: UserID, assistantMessageID: MessageID, systemPrompt: String,
        model: ModelInfo, options: GenerationOptions = GenerationOptions(),
        provisionalTitle: String? = nil, history: [HistoryMessage] = []
    ) {
        self.conversationID = conversationID
        self.userID = userID
        self.assistantMessageID = assistantMessageID
        self.systemPrompt = systemPrompt
        self.model = model
        self.options = options
        self.provisionalTitle = provisionalTitle
        self.history = history
    }
}

/// Why a generation could not start.
public enum GenerationError: Error, Equatable, Sendable {
    /// A reply is already being generated in this conversation.
    case busy
    /// The server is shutting down.
    case shuttingDown
    /// As many replies run as the server may hold at once (`GenerationSettings.maxRunningReplies`).
    case atCapacity
}
