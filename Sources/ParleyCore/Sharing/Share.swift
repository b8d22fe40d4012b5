import Foundation

/// The row id of a share link.
public typealias ShareID = Int64

/// A share link of a conversation: a read-only snapshot reachable by anyone holding its token.
public struct Share: Sendable, Equatable {
    public var id: ShareID
    public var userID: UserID
    public var conversationID: ConversationID
    public var title: String
    public var model: String
    /// The owner's name as the page shows it, or nil when shared anonymously.
    public var authorName: String?
    public var createdAt: Date
    /// When the snapshot was taken (at creation, or at its last update).
    public var snapshotAt: Date
    /// When the link stops working; nil for never.
    public var expiresAt: Date?
    public var views: Int
    /// Whether the snapshot shows the model's reasoning (the owner's choice; off unless chosen).
    public var includesReasoning: Bool

    /// Creates a share value.
    public init(
        id: ShareID, userID: UserID, conversationID: ConversationID, title: String, model: String,
        authorName: String?, createdAt: Date, snapshotAt: Date, expiresAt: Date?, views: Int,
        includesReasoning: Bool = false
    ) {
        self.id = id
        self.userID = userID
        self.conversationID = conversationID
        self.title = title
        self.model = model
        self.authorName = authorName
        self.createdAt = createdAt
        self.snapshotAt = snapshotAt
        self.expiresAt = expiresAt
        self.views = views
        self.includesReasoning = includesReasoning
    }

    /// Whether the link still works at `now`.
    public func isLive(at now: Date) -> Bool {
        expiresAt.map { $0 > now } ?? true
    }
}

/// What a share link shows: the share and its own copy of the messages.
public struct SharedConversation: Sendable, Equatable {
    public var share: Share
    /// The snapshot's messages in order; their ids are the snapshot's own, and they carry no usage or failure, nor
    /// reasoning unless the share includes it.
    public var messages: [Message]

    /// Creates the pair.
    public init(share: Share, messages: [Message]) {
        self.share = share
        self.messages = messages
    }
}
