/// A reply to generate: which conversation, which placeholder message, which model.
public struct GenerationJob: Sendable, Equatable {
    public var conversationID: ConversationID
    public var userID: UserID
    public var assistantMessageID: MessageID
    public var systemPrompt: String
    public var model: ModelInfo

    /// Creates a job.
    public init(conversationID: ConversationID, userID: UserID, assistantMessageID: MessageID, systemPrompt: String, model: ModelInfo) {
        self.conversationID = conversationID
        self.userID = userID
        self.assistantMessageID = assistantMessageID
        self.systemPrompt = systemPrompt
        self.model = model
    }
}

/// Why a generation could not start.
public enum GenerationError: Error, Equatable, Sendable {
    /// A reply is already being generated in this conversation.
    case busy
    /// The server is shutting down.
    case shuttingDown
}
