/// A conversation together with all of its messages: the unit of export and import.
public struct ConversationTranscript: Sendable, Equatable {
    public var conversation: Conversation
    public var messages: [Message]

    /// Creates a transcript.
    public init(conversation: Conversation, messages: [Message]) {
        self.conversation = conversation
        self.messages = messages
    }

    /// The messages of the branch the conversation shows, oldest first.
    public var currentBranch: [Message] {
        ConversationTree(messages).branch(endingAt: conversation.currentLeafID ?? messages.last?.id)
    }
}
