import Foundation
import Logging

/// The rules of share links: only the owner publishes, updates and revokes them (anyone else gets `.notFound`);
/// a link shows its own snapshot of the finished messages (their reasoning only when the owner chose so) until it
/// expires; a signed-in visitor continues it as their own.
public struct ShareService: Sendable {
    let store: any ShareStore
    let chats: any ChatStore
    let catalog: ModelCatalog
    let tokens: any ShareTokens
    let logger: Logger
    let now: @Sendable () -> Date

    /// Creates the service; `now` is the clock that expiry is measured by.
    public init(
        store: any ShareStore, chats: any ChatStore, catalog: ModelCatalog, tokens: any ShareTokens,
        logger: Logger, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.chats = chats
        self.catalog = catalog
        self.tokens = tokens
        self.logger = logger
        self.now = now
    }

    /// Publishes the user's conversation as it is now: a new link; or, with `update`, a fresh snapshot (with these
    /// options) for the conversation's live links, keeping their tokens, or a new link when none is live.
    public func publish(
        conversationID: ConversationID, user: User, options: ShareOptions,
        update: Bool
    ) async throws(ShareError) -> SharePublication {
        let now = now()
        let content = try await snapshot(conversationID: conversationID, user: user, options: options, now: now)
        if update {
            let count = try await storing {
                try await store.updateShares(
                    conversationID: conversationID, userID: user.id, content: content, now: now)
            }
            if count > 0 { return .updated(count: count) }
        }
        let token = tokens.make()
        let share = try await storing {
            try await store.createShare(
                conversationID: conversationID, userID: user.id, tokenHash: tokens.digest(token),
                content: content, now: now)
        }
        return .created(share, token: token)
    }

    /// What a live link shows, counting the view; `.notFound` for an unknown, revoked or expired token.
    public func view(token: String) async throws(ShareError) -> SharedConversation {
        let share = try await liveShare(token: token)
        let messages = try await storing { try await store.messages(shareID: share.id) }
        try await storing { try await store.recordView(shareID: share.id) }
        return SharedConversation(share: share, messages: messages)
    }

    /// An image shown by the snapshot of a live link; `.notFound` otherwise.
    public func attachment(id: AttachmentID, token: String) async throws(ShareError) -> AttachmentContent {
        let share = try await liveShare(token: token)
        guard let content = try await storing({ try await store.sharedAttachment(id: id, shareID: share.id) }) else {
            throw .notFound
        }
        return content
    }

    /// The user's share reached by this token, live or expired; `.notFound` when it is not the user's.
    public func ownedShare(token: String, userID: UserID) async throws(ShareError) -> Share {
        guard let share = try await storing({ try await store.share(tokenHash: tokens.digest(token)) }),
            share.userID == userID
        else { throw .notFound }
        return share
    }

    /// The user's shares, newest first.
    public func shares(userID: UserID) async throws(ShareError) -> [Share] {
        try await storing { try await store.shares(userID: userID) }
    }

    /// Revokes the user's share reached by this token: the link answers 404 from now on, and its snapshot is deleted.
    public func revoke(token: String, userID: UserID) async throws(ShareError) {
        let share = try await ownedShare(token: token, userID: userID)
        try await revoke(shareID: share.id, userID: userID)
    }

    /// Revokes one of the user's shares by its id.
    public func revoke(shareID: ShareID, userID: UserID) async throws(ShareError) {
        try await storing { try await store.deleteShare(id: shareID, userID: userID) }
    }

    /// Copies a live link's snapshot into a new conversation of the user's, on the shared model while it is still
    /// offered.
    public func fork(token: String, userID: UserID) async throws(ShareError) -> Conversation {
        let share = try await liveShare(token: token)
        let model = (catalog.model(share.model) ?? catalog.defaultModel)?.id ?? share.model
        return try await storing { try await store.copyShare(id: share.id, toUser: userID, model: model, now: now()) }
    }

    /// Whether the share's link works now.
    public func isLive(_ share: Share) -> Bool {
        share.isLive(at: now())
    }

    /// Whether a message goes into a snapshot: finished user and assistant messages; a reply still being written waits
    /// for the next update, and system messages stay private.
    static func isShareable(_ message: Message) -> Bool {
        message.status != .streaming && message.role != .system
    }

    /// A message as a snapshot copies it: its reasoning and the time it took only when the share includes them.
    static func shared(_ message: Message, includingReasoning: Bool) -> Message {
        guard !includingReasoning else { return message }
        var message = message
        message.reasoning = nil
        message.reasoningMilliseconds = nil
        return message
    }

    /// The name a share shows for its author: the part of the email before the "@" (the address itself is never
    /// published).
    static func authorName(of user: User) -> String {
        String(user.email.prefix { $0 != "@" })
    }

    private func snapshot(
        conversationID: ConversationID, user: User, options: ShareOptions,
        now: Date
    ) async throws(ShareError) -> ShareContent {
        guard
            let conversation = try await storing({ try await chats.conversation(id: conversationID, userID: user.id) })
        else {
            throw .notFound
        }
        let messages = try await storing {
            try await chats.messages(conversationID: conversationID, userID: user.id, afterID: nil, limit: Int.max)
                .items
        }
        return ShareContent(
            title: conversation.title, model: conversation.model,
            authorName: options.author == .name ? Self.authorName(of: user) : nil,
            expiresAt: options.expiry.date(from: now),
            messages: messages.filter(Self.isShareable).map {
                Self.shared($0, includingReasoning: options.includesReasoning)
            },
            includesReasoning: options.includesReasoning)
    }

    private func liveShare(token: String) async throws(ShareError) -> Share {
        guard let share = try await storing({ try await store.share(tokenHash: tokens.digest(token)) }),
            isLive(share)
        else { throw .notFound }
        return share
    }

    private func storing<T>(_ access: () async throws -> T) async throws(ShareError) -> T {
        do {
            return try await access()
        } catch {
            if error as? StoreError == .notFound { throw .notFound }
            if error as? StoreError == .diskFull { throw .diskFull }
            if case StoreError.storageFull(let status)? = error as? StoreError { throw .storageFull(status) }
            logger.error("share storage failed", metadata: ["error": "\(error)"])
            throw .storage
        }
    }
}
