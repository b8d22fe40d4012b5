import Foundation

/// Who wrote a message.
public enum MessageRole: String, Sendable, Codable {
    case system, user, assistant
}

/// Where a message is in its life.
public enum MessageStatus: String, Sendable, Codable {
    /// `truncated`: complete as far as it goes, but cut at the model's output limit (it can be continued).
    case complete, streaming, stopped, error, interrupted, truncated
}

/// Tokens and money spent on one reply; money in integer micro-dollars.
public struct Usage: Sendable, Equatable, Codable {
    public var promptTokens: Int
    /// The part of `promptTokens` read from the provider's prompt cache (charged at the cached-input rate).
    public var cachedPromptTokens: Int
    public var completionTokens: Int
    /// The part of `completionTokens` the model spent reasoning: priced as output, since it is part of it.
    public var reasoningTokens: Int
    public var costMicros: Int64
    public var estimated: Bool

    /// Creates a usage value.
    public init(
        promptTokens: Int = 0, cachedPromptTokens: Int = 0, completionTokens: Int = 0, reasoningTokens: Int = 0,
        costMicros: Int64 = 0, estimated: Bool = false
    ) {
        self.promptTokens = promptTokens
        self.cachedPromptTokens = cachedPromptTokens
        self.completionTokens = completionTokens
        self.reasoningTokens = reasoningTokens
        self.costMicros = costMicros
        self.estimated = estimated
    }

    /// Creates a usage value from a cost in dollars read at the edge (an import file).
    public init(
        promptTokens: Int, completionTokens: Int, reasoningTokens: Int = 0, costUSD: Double, estimated: Bool
    ) {
        self.init(
            promptTokens: promptTokens, completionTokens: completionTokens, reasoningTokens: reasoningTokens,
            costMicros: MicroDollars.from(dollars: costUSD), estimated: estimated)
    }

    /// The cost in dollars, for JSON (`cost_usd`) and metrics only; money is computed in `costMicros`.
    public var costUSD: Double { MicroDollars.dollars(costMicros) }

    /// Adds another call's usage to this one (a reply with tools makes several); estimated if either is.
    public static func += (lhs: inout Usage, rhs: Usage) {
        lhs.promptTokens += rhs.promptTokens
        lhs.cachedPromptTokens += rhs.cachedPromptTokens
        lhs.completionTokens += rhs.completionTokens
        lhs.reasoningTokens += rhs.reasoningTokens
        lhs.costMicros += rhs.costMicros
        lhs.estimated = lhs.estimated || rhs.estimated
    }
}

/// A user-facing reason why a reply failed.
public struct FailureReason: Sendable, Equatable, Error {
    public var code: String
    public var message: String

    /// Creates a reason.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// A reply that could not be saved once it ended (the disk being full, or another storage failure).
    public static func notSaved(diskFull: Bool) -> FailureReason {
        FailureReason(
            code: "not_saved",
            message: diskFull
                ? "This reply could not be saved because the server's disk is full; it will be gone after a reload."
                : "This reply could not be saved; it will be gone after a reload.")
    }
}

/// Where a message stands among its siblings, the versions of one turn (edits of a question, regenerated replies):
/// its position from 1 in the order they were written, how many there are, and the versions before and after it.
public struct MessageVersions: Sendable, Equatable {
    public var index: Int
    public var count: Int
    public var previous: MessageID?
    public var next: MessageID?

    /// Creates a position; a message without siblings is 1 of 1.
    public init(index: Int = 1, count: Int = 1, previous: MessageID? = nil, next: MessageID? = nil) {
        self.index = index
        self.count = count
        self.previous = previous
        self.next = next
    }
}

/// One message of a conversation.
public struct Message: Sendable, Equatable {
    public var id: MessageID
    public var conversationID: ConversationID
    public var role: MessageRole
    public var content: String
    /// The model's reasoning before its answer (nil when it showed none); never sent back to a model as context.
    public var reasoning: String?
    /// How long the model reasoned, from its first reasoning text to its first answer text (or the reply's end), in
    /// milliseconds; nil when it showed no reasoning or the time is unknown (replies stored before it was kept).
    public var reasoningMilliseconds: Int?
    public var status: MessageStatus
    public var model: String
    public var requestID: String?
    public var parentID: MessageID?
    public var usage: Usage
    public var failure: FailureReason?
    public var createdAt: Date
    /// The images of the message (uploaded with a user message, generated as a reply), in order, without bytes.
    public var attachments: [Attachment]
    /// The documents sent with a user message, in order.
    public var documents: [Document] = []
    /// The numbered sources a reply was given (and cites as `[n]`); empty when it drew on no document.
    public var sources: [DocumentSource] = []
    /// The input tokens of a reply that were its sources' text.
    public var documentTokens = 0
    /// The tool calls a reply made, with how each went.
    public var toolSteps: [ToolStep] = []
    /// Its place among the other versions of its turn, when read as part of a branch.
    public var versions = MessageVersions()

    /// Creates a message value.
    public init(
        id: MessageID, conversationID: ConversationID, role: MessageRole, content: String, reasoning: String? = nil,
        reasoningMilliseconds: Int? = nil, status: MessageStatus, model: String, requestID: String? = nil,
        parentID: MessageID? = nil, usage: Usage = Usage(), failure: FailureReason? = nil, createdAt: Date,
        attachments: [Attachment] = []
    ) {
        self.id = id
        self.conversationID = conversationID
        self.role = role
        self.content = content
        self.reasoning = reasoning
        self.reasoningMilliseconds = reasoningMilliseconds
        self.status = status
        self.model = model
        self.requestID = requestID
        self.parentID = parentID
        self.usage = usage
        self.failure = failure
        self.createdAt = createdAt
        self.attachments = attachments
    }
}

/// A message of the conversation a reply answers, as the reply's request needs it: who wrote it, its text and its
/// images. Read for every send over the whole conversation, so it holds only these: 3 columns a message to read and
/// copy instead of a full `Message`'s 16.
public struct HistoryMessage: Sendable, Equatable {
    public var id: MessageID
    public var role: MessageRole
    public var content: String
    /// The message's images, in order, without bytes.
    public var attachments: [Attachment]
    /// The documents sent with the message that were read, whose text a reply may draw on.
    public var documentIDs: [DocumentID]

    /// Creates a history message.
    public init(
        id: MessageID, role: MessageRole, content: String, attachments: [Attachment] = [],
        documentIDs: [DocumentID] = []
    ) {
        self.id = id
        self.role = role
        self.content = content
        self.attachments = attachments
        self.documentIDs = documentIDs
    }

    /// The parts of `message` a reply's request needs.
    public init(_ message: Message) {
        self.init(
            id: message.id, role: message.role, content: message.content, attachments: message.attachments,
            documentIDs: message.documents.filter { $0.status == .ready }.map(\.id))
    }
}
