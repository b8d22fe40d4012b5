/// What a send (or regenerate) created: the user message (none for a regenerate) and the reply placeholder.
public struct SendResult: Sendable, Equatable {
    public var conversationID: ConversationID
    public var userMessageID: MessageID?
    public var assistantMessageID: MessageID
    /// Whether this repeats an earlier send with the same request id (nothing new was started).
    public var isRepeat: Bool

    /// Creates a result.
    public init(
        conversationID: ConversationID, userMessageID: MessageID?, assistantMessageID: MessageID, isRepeat: Bool
    ) {
        self.conversationID = conversationID
        self.userMessageID = userMessageID
        self.assistantMessageID = assistantMessageID
        self.isRepeat = isRepeat
    }
}
