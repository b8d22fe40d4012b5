import Foundation

/// A conversation owned by one user.
public struct Conversation: Sendable, Equatable {
    public var id: ConversationID
    public var userID: UserID
    public var title: String
    public var model: String
    public var systemPrompt: String
    public var createdAt: Date
    public var updatedAt: Date
    /// Kept on top of the list.
    public var pinned: Bool
    /// Left out of the list (still searchable and exported).
    public var archived: Bool
    /// The last message of the branch the conversation shows (nil while it has no message).
    public var currentLeafID: MessageID?
    /// The conversation's own generation options (over its model's defaults).
    public var options: GenerationOptions
    /// The assistant it was started with, if any.
    public var assistant: AssistantReference?
    /// Whether knowledge collections may be attached to it or to its assistant, so that its replies look them up.
    public var usesKnowledge = false
    /// The MCP servers whose tools its replies may call (by id; nil: those on by default).
    public var toolServers: [String]?

    /// Creates a conversation value.
    public init(
        id: ConversationID, userID: UserID, title: String, model: String, systemPrompt: String,
        createdAt: Date, updatedAt: Date, pinned: Bool = false, archived: Bool = false, currentLeafID: MessageID? = nil,
        options: GenerationOptions = GenerationOptions(), assistant: AssistantReference? = nil
    ) {
        self.id = id
        self.userID = userID
        self.title = title
        self.model = model
        self.systemPrompt = systemPrompt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.pinned = pinned
        self.archived = archived
        self.currentLeafID = currentLeafID
        self.options = options
        self.assistant = assistant
    }
}

/// One page of a cursor-paginated list.
public struct Page<Item: Sendable>: Sendable {
    public var items: [Item]
    public var hasMore: Bool

    /// Creates a page.
    public init(items: [Item], hasMore: Bool) {
        self.items = items
        self.hasMore = hasMore
    }
}
