/// Why a chat action was refused, each mapped to one status code by the HTTP layer.
public enum ChatError: Error, Equatable, Sendable {
    /// No such conversation or message, or not the user's.
    case notFound
    /// The message named is of the conversation but not of the role the action needs: an edit names a question, a
    /// regeneration a reply.
    case wrongRole(expected: MessageRole)
    /// The message is empty or only whitespace.
    case emptyMessage
    /// The message is longer than `ChatService.maxMessageLength` characters.
    case messageTooLong
    /// The title is empty or too long.
    case invalidTitle
    /// The system prompt is longer than `ChatService.maxSystemPromptLength` characters.
    case systemPromptTooLong
    /// The model is not offered.
    case unknownModel(String)
    /// A group restricts the model and none of the user's groups opens it.
    case modelNotAllowed(String)
    /// More than `ChatService.maxImagesPerMessage` images came with one message.
    case tooManyImages
    /// More than `ChatService.maxDocumentsPerMessage` documents came with one message, or one came twice.
    case tooManyDocuments
    /// A document sent with a message is not one of the user's read documents waiting in this conversation (still
    /// being read, refused when read, sent already, or not theirs); the text says which.
    case documentNotReady(String)
    /// Images came with a message for a model that cannot see them.
    case modelCannotSeeImages(String)
    /// An assistant's field is out of its limits; the text says which.
    case invalidAssistant(String)
    /// The caller may use this (a shared assistant) but only its author or an admin may change it.
    case readOnly
    /// A generation setting is outside the range its model takes; the text names it and the range.
    case invalidSetting(String)
    /// A completion was asked of a model that draws images rather than writing text.
    case modelDrawsImages(String)
    /// A reply is already being generated in this conversation.
    case busy
    /// A send with this request id is still running.
    case requestInFlight
    /// The user's monthly budget is spent; sends are refused until it resets.
    case budgetExceeded(BudgetStatus)
    /// The user has a monthly budget, so their replies run one at a time, and another one is running.
    case budgetReplyRunning
    /// The server is shutting down.
    case shuttingDown
    /// The server runs as many replies as it may hold at once; a later send will be taken.
    case atCapacity
    /// The disk holding the database is full; nothing was saved.
    case diskFull
    /// What was to be stored would put the user over their storage quota; nothing was stored.
    case storageFull(StorageStatus)
    /// Storage failed; details are in the logs.
    case storage
}

extension ChatError {
    /// The words of an `.invalidSetting`, else the error's description.
    public var problem: String {
        if case .invalidSetting(let problem) = self { return problem }
        return "\(self)"
    }
}
