import Foundation

/// What a share publishes: the conversation's title and model, its finished messages, and the link's presentation.
/// The store copies the messages as given, reasoning included: they carry reasoning only when `includesReasoning`.
public struct ShareContent: Sendable, Equatable {
    public var title: String
    public var model: String
    public var authorName: String?
    public var expiresAt: Date?
    public var messages: [Message]
    /// Whether the share shows the model's reasoning.
    public var includesReasoning: Bool

    /// Creates the content.
    public init(
        title: String, model: String, authorName: String?, expiresAt: Date?, messages: [Message],
        includesReasoning: Bool = false
    ) {
        self.title = title
        self.model = model
        self.authorName = authorName
        self.expiresAt = expiresAt
        self.messages = messages
        self.includesReasoning = includesReasoning
    }
}

/// Share links and their snapshots. Owner actions are scoped by the owner; the public lookup goes by token digest.
public protocol ShareStore: Sendable {
    /// Stores a new share of the user's conversation under a token digest; `.notFound` when the conversation is not the
    /// user's.
    func createShare(
        conversationID: ConversationID, userID: UserID, tokenHash: String, content: ShareContent,
        now: Date
    ) async throws(StoreError) -> Share
    /// Replaces the snapshot and options of the user's shares of this conversation that are live at `now`; returns how
    /// many.
    func updateShares(conversationID: ConversationID, userID: UserID, content: ShareContent, now: Date)
        async throws(StoreError) -> Int
    /// The share stored under this token digest, whoever owns it, expired or not.
    func share(tokenHash: String) async throws(StoreError) -> Share?
    /// The snapshot's messages of a share, in order.
    func messages(shareID: ShareID) async throws(StoreError) -> [Message]
    /// Counts one view of a share.
    func recordView(shareID: ShareID) async throws(StoreError)
    /// An attachment shown by a share's snapshot, with its bytes.
    func sharedAttachment(id: AttachmentID, shareID: ShareID) async throws(StoreError) -> AttachmentContent?
    /// The user's shares, newest first.
    func shares(userID: UserID) async throws(StoreError) -> [Share]
    /// Deletes a share and its snapshot; `.notFound` when it is not the user's.
    func deleteShare(id: ShareID, userID: UserID) async throws(StoreError)
    /// Copies a share's snapshot into a new conversation of the user's, in one transaction; `.notFound` when the share
    /// is gone.
    func copyShare(id: ShareID, toUser userID: UserID, model: String, now: Date) async throws(StoreError)
        -> Conversation
}
