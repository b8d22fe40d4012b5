import Foundation
import Logging

/// The chat actions shared by the browser pages and the JSON API: validated, owner-scoped, idempotent.
public struct ChatService: Sendable {
    /// The longest message accepted, in characters.
    public static let maxMessageLength = 100_000
    /// The longest title accepted, in characters.
    public static let maxTitleLength = 200
    /// The longest system prompt accepted, in characters.
    public static let maxSystemPromptLength = 20_000
    /// The most images one message may carry.
    public static let maxImagesPerMessage = 4
    /// The most documents one message may carry.
    public static let maxDocumentsPerMessage = 10

    let store: any ChatStore
    public let generations: GenerationManager
    public let catalog: ModelCatalog
    let logger: Logger

    /// Creates the service.
    public init(store: any ChatStore, generations: GenerationManager, catalog: ModelCatalog, logger: Logger) {
        self.store = store
        self.generations = generations
        self.catalog = catalog
        self.logger = logger
    }

    /// Creates a conversation with the given or default model; the title defaults to the placeholder, which the
    /// first message replaces.
    public func createConversation(
        userID: UserID, title: String?, model: String?, systemPrompt: String?,
        options: GenerationOptions = GenerationOptions(), assistant: AssistantReference? = nil
    ) async throws(ChatError) -> Conversation {
        let model = try await resolveModel(model, current: nil, userID: userID)
        let title = try validTitle(title ?? ConversationTitle.placeholder)
        let systemPrompt = Self.storable(systemPrompt ?? "")
        guard systemPrompt.count <= Self.maxSystemPromptLength else { throw .systemPromptTooLong }
        try options.validate(for: model)
        return try await storing {
            try await store.createConversation(
                userID: userID, title: title, model: model.id, systemPrompt: systemPrompt, options: options,
                assistant: assistant)
        }
    }

    /// The user's conversation, or `.notFound`.
    public func conversation(_ id: ConversationID, userID: UserID) async throws(ChatError) -> Conversation {
        guard let conversation = try await storing({ try await store.conversation(id: id, userID: userID) }) else {
            throw .notFound
        }
        return conversation
    }

    /// Stores a user message and starts the reply; a repeated request id returns the first result
    /// (or `.requestInFlight` while that reply still runs). A conversation still under the placeholder title is
    /// titled from the message's first words. Images (already checked by `NewImage`) need a model that can see them;
    /// documents (uploaded to this conversation first) must have been read.
    /// A repeat is found when it cannot start (the conversation is busy, the server full, or the store refuses the
    /// request id a second time), so that a first send reads nothing more for its request id. `receivedAt` is when the
    /// request reached Parley, from which Parley's part of the reply's first token is timed.
    /// With `editOf`, the message is a new version of that question of the conversation: its sibling, with the same
    /// earlier messages.
    public func send(
        userID: UserID, conversationID: ConversationID, content: String, images: [NewImage] = [],
        documents: [DocumentID] = [], model: String?, requestID: String?, editOf: MessageID? = nil,
        receivedAt: ContinuousClock.Instant
    ) async throws(ChatError) -> SendResult {
        let content = Self.storable(content)
        guard !content.allSatisfy(\.isWhitespace) else { throw .emptyMessage }
        guard content.count <= Self.maxMessageLength else { throw .messageTooLong }
        guard images.count <= Self.maxImagesPerMessage else { throw .tooManyImages }
        guard documents.count <= Self.maxDocumentsPerMessage, Set(documents).count == documents.count else {
            throw .tooManyDocuments
        }
        let conversation = try await self.conversation(conversationID, userID: userID)
        let model = try await resolveModel(model, current: conversation.model, userID: userID)
        guard images.isEmpty || model.vision else { throw .modelCannotSeeImages(model.id) }
        if let editOf { try await requireMessage(editOf, of: conversationID, userID: userID, role: .user) }
        let provisionalTitle =
            conversation.title == ConversationTitle.placeholder ? ConversationTitle.fromFirstMessage(content) : nil
        do {
            var userMessageID: MessageID?
            let job = try await generations.start(conversationID: conversationID, receivedAt: receivedAt) {
                let exchange = try await store.beginExchange(
                    conversationID: conversationID, userContent: content, images: images, documents: documents,
                    requestID: requestID, model: model.id, anchor: editOf.map { .newVersion(of: $0) } ?? .currentLeaf)
                userMessageID = exchange.userMessage?.id
                var job = makeJob(for: conversation, model: model, exchange: exchange)
                job.provisionalTitle = provisionalTitle
                return job
            }
            if let provisionalTitle { await title(conversation, provisionalTitle) }
            return SendResult(
                conversationID: conversationID, userMessageID: userMessageID,
                assistantMessageID: job.assistantMessageID, isRepeat: false)
        } catch StoreError.duplicate {
            if let earlier = try await repeatedSend(conversationID: conversationID, requestID: requestID) {
                return earlier
            }
            throw .requestInFlight
        } catch let error as GenerationError where error != .shuttingDown {
            if let earlier = try await repeatedSend(conversationID: conversationID, requestID: requestID) {
                return earlier
            }
            throw map(error)
        } catch {
            throw map(error)
        }
    }

    /// Writes another version of a reply (`messageID`, else the current leaf's), keeping the earlier ones; it becomes
    /// the current branch. `receivedAt` is when the request reached Parley.
    public func regenerate(
        userID: UserID, conversationID: ConversationID, messageID: MessageID? = nil, model: String?,
        receivedAt: ContinuousClock.Instant
    ) async throws(ChatError) -> SendResult {
        let conversation = try await self.conversation(conversationID, userID: userID)
        let model = try await resolveModel(model, current: conversation.model, userID: userID)
        let budget = try await budgetStatus(userID: userID)
        guard !budget.isExhausted else { throw .budgetExceeded(budget) }
        let anchor: ExchangeAnchor
        if let messageID {
            let reply = try await requireMessage(messageID, of: conversationID, userID: userID, role: .assistant)
            guard let question = reply.parentID else { throw .notFound }
            anchor = .reply(to: question)
        } else {
            anchor = .currentLeaf
        }
        do {
            let job = try await generations.start(conversationID: conversationID, receivedAt: receivedAt) {
                let exchange = try await store.beginExchange(
                    conversationID: conversationID, userContent: nil, images: [], documents: [], requestID: nil,
                    model: model.id, anchor: anchor)
                return makeJob(for: conversation, model: model, exchange: exchange)
            }
            return SendResult(
                conversationID: conversationID, userMessageID: job.history.last?.id,
                assistantMessageID: job.assistantMessageID, isRepeat: false)
        } catch {
            throw map(error)
        }
    }

    /// Stops the running reply of the user's conversation; idempotent.
    public func stop(userID: UserID, conversationID: ConversationID) async throws(ChatError) {
        _ = try await conversation(conversationID, userID: userID)
        generations.stop(conversationID: conversationID)
    }

    /// One of the user's images, with its bytes; nil when there is no such image of theirs.
    public func attachment(id: AttachmentID, userID: UserID) async throws(ChatError) -> AttachmentContent? {
        try await storing { try await store.attachment(id: id, userID: userID) }
    }

    /// Renames the user's conversation.
    public func rename(userID: UserID, conversationID: ConversationID, title: String) async throws(ChatError) {
        let title = try validTitle(title)
        try await storing { try await store.renameConversation(id: conversationID, userID: userID, title: title) }
        generations.announceTitle(title, conversationID: conversationID)
    }

    /// Pins the user's conversation to the top of the list, or unpins it.
    public func setPinned(_ pinned: Bool, userID: UserID, conversationID: ConversationID) async throws(ChatError) {
        try await storing { try await store.setPinned(pinned, id: conversationID, userID: userID) }
    }

    /// Archives the user's conversation (out of the list, still searchable), or brings it back.
    public func setArchived(_ archived: Bool, userID: UserID, conversationID: ConversationID) async throws(ChatError) {
        try await storing { try await store.setArchived(archived, id: conversationID, userID: userID) }
    }

    /// Deletes a user's account and everything of theirs, stopping their running replies (for the user
    /// themselves, or an admin); `.notFound` when there is no such user.
    public func deleteAccount(userID: UserID, accounts: any AccountStore) async throws(ChatError) {
        let conversationIDs = try await storing { try await accounts.deleteUser(id: userID) }
        for id in conversationIDs { generations.stop(conversationID: id) }
    }

    /// Changes the conversation's model, system prompt and generation options (used from the next reply on); the
    /// options are checked against the model's ranges.
    public func configure(
        userID: UserID, conversationID: ConversationID, model: String?, systemPrompt: String,
        options: GenerationOptions
    ) async throws(ChatError) {
        let systemPrompt = Self.storable(systemPrompt)
        guard systemPrompt.count <= Self.maxSystemPromptLength else { throw .systemPromptTooLong }
        let conversation = try await self.conversation(conversationID, userID: userID)
        let model = try await resolveModel(model, current: conversation.model, userID: userID)
        try options.validate(for: model)
        try await storing {
            try await store.configureConversation(
                id: conversationID, userID: userID, model: model.id, systemPrompt: systemPrompt, options: options)
        }
    }

    /// Allows or denies a tool call of the conversation's running reply that waits for the user; `.notFound` when none
    /// waits under that id.
    public func decideToolCall(userID: UserID, conversationID: ConversationID, callID: String, allow: Bool)
        async throws(ChatError)
    {
        _ = try await conversation(conversationID, userID: userID)
        guard generations.decide(conversationID: conversationID, callID: callID, allow: allow) else {
            throw .notFound
        }
    }

    /// Sets which MCP servers' tools the conversation's replies may call (nil: those on by default); the caller has
    /// checked that they exist.
    public func setToolServers(_ servers: [String]?, userID: UserID, conversationID: ConversationID)
        async throws(ChatError)
    {
        try await storing {
            try await store.setToolServers(servers, conversationID: conversationID, userID: userID)
        }
    }

    /// Deletes the user's conversation, stopping its reply first.
    public func delete(userID: UserID, conversationID: ConversationID) async throws(ChatError) {
        _ = try await conversation(conversationID, userID: userID)
        generations.stop(conversationID: conversationID)
        try await storing { try await store.deleteConversation(id: conversationID, userID: userID) }
    }

    /// A page of the user's conversations, pinned first and then newest first, from before `before`: archived ones
    /// or the others.
    public func conversations(
        userID: UserID, before: ConversationID?, limit: Int,
        archived: Bool = false
    ) async throws(ChatError) -> Page<Conversation> {
        try await storing {
            try await store.conversations(userID: userID, before: before, limit: limit, archived: archived)
        }
    }

    /// A page of the messages of a branch of the user's conversation (by default the current one), oldest first,
    /// after `afterID`.
    public func messages(
        conversationID: ConversationID, userID: UserID, branch: BranchSelection = .current, afterID: MessageID?,
        limit: Int
    ) async throws(ChatError) -> Page<Message> {
        try await storing {
            try await store.messages(
                conversationID: conversationID, userID: userID, branch: branch, afterID: afterID, limit: limit)
        }
    }

    /// Shows the branch through `messageID` of the user's conversation, down to its latest leaf; returns the leaf.
    @discardableResult
    public func selectBranch(userID: UserID, conversationID: ConversationID, messageID: MessageID)
        async throws(ChatError) -> MessageID
    {
        try await storing {
            try await store.selectBranch(conversationID: conversationID, userID: userID, messageID: messageID)
        }
    }

    /// Deletes a message of the user's conversation and everything under it, stopping first a reply running there
    /// (its usage is still charged: the provider was paid).
    public func deleteMessage(userID: UserID, conversationID: ConversationID, messageID: MessageID)
        async throws(ChatError)
    {
        _ = try await requireMessage(messageID, of: conversationID, userID: userID, role: nil)
        if let running = generations.runningReply(conversationID: conversationID),
            try await isUnder(running, messageID, conversationID: conversationID, userID: userID)
        {
            generations.stop(conversationID: conversationID)
        }
        try await storing {
            try await store.deleteMessage(conversationID: conversationID, userID: userID, messageID: messageID)
        }
    }

    /// The user's messages that match `text`, best first.
    public func search(userID: UserID, text: String, limit: Int) async throws(ChatError) -> [SearchHit] {
        try await storing { try await store.search(userID: userID, text: text, limit: limit) }
    }

    /// The transcripts of the user's conversations: one, or all of them when `conversationID` is nil.
    public func transcripts(
        userID: UserID,
        conversationID: ConversationID?
    ) async throws(ChatError) -> [ConversationTranscript] {
        try await storing { try await store.transcripts(userID: userID, conversationID: conversationID) }
    }

    /// Stores transcripts as new conversations of the user.
    public func importTranscripts(
        _ transcripts: [ConversationTranscript],
        userID: UserID
    ) async throws(ChatError) -> [Conversation] {
        try await storing { try await store.importTranscripts(transcripts, userID: userID) }
    }

    /// The user's spend this month against their monthly budget.
    public func budgetStatus(userID: UserID) async throws(ChatError) -> BudgetStatus {
        try await storing { try await store.budgetStatus(userID: userID) }
    }

    /// The model `userID` uses: the one named (which must exist), else the conversation's, else the default (or, when
    /// a group restricts that one, the first the user may use); `.modelNotAllowed` when a group restricts the model
    /// named or the conversation's and no group of the user's opens it.
    func resolveModel(_ requested: String?, current: String?, userID: UserID) async throws(ChatError) -> ModelInfo {
        let access = try await modelAccess(userID: userID)
        let model: ModelInfo
        if let requested, !requested.isEmpty {
            guard let named = catalog.model(requested) else { throw .unknownModel(requested) }
            model = named
        } else if let current, let conversations = catalog.model(current) {
            model = conversations
        } else {
            guard let first = catalog.defaultModel else { throw .unknownModel("") }
            return ([first] + catalog.models).first { access.allows($0.id) } ?? first
        }
        guard access.allows(model.id) else { throw .modelNotAllowed(model.id) }
        return model
    }

    /// The models the user may use, by the groups that restrict models.
    public func modelAccess(userID: UserID) async throws(ChatError) -> ModelAccess {
        try await storing { try await store.modelAccess(userID: userID) }
    }

    /// The catalog's models the user may use, in the catalog's order.
    public func models(for userID: UserID) async throws(ChatError) -> [ModelInfo] {
        let access = try await modelAccess(userID: userID)
        return catalog.models.filter { access.allows($0.id) }
    }

    /// The result of the earlier send with `requestID`, if there was one; `.requestInFlight` while its reply runs.
    private func repeatedSend(conversationID: ConversationID, requestID: String?) async throws(ChatError) -> SendResult?
    {
        guard let requestID else { return nil }
        guard
            let exchange = try await storing({
                try await store.exchange(conversationID: conversationID, requestID: requestID)
            })
        else {
            return nil
        }
        guard exchange.assistantMessage.status != .streaming else { throw .requestInFlight }
        return SendResult(
            conversationID: conversationID, userMessageID: exchange.userMessage?.id,
            assistantMessageID: exchange.assistantMessage.id, isRepeat: true)
    }

    /// Gives a conversation still under the placeholder title one from the first words of its first message (the
    /// model may improve on it once it has answered), and tells its open pages; a failure is only logged, since the
    /// message itself was sent.
    private func title(_ conversation: Conversation, _ title: String) async {
        do {
            try await store.renameConversation(id: conversation.id, userID: conversation.userID, title: title)
            generations.announceTitle(title, conversationID: conversation.id)
        } catch {
            logger.warning(
                "titling a conversation failed", metadata: ["conversation": "\(conversation.id)", "error": "\(error)"])
        }
    }

    /// The user's message `id` of the conversation, of `role` when one is given: `.notFound` when it is not theirs or
    /// not in this conversation, `.wrongRole` when it is of the other role.
    @discardableResult
    private func requireMessage(_ id: MessageID, of conversationID: ConversationID, userID: UserID, role: MessageRole?)
        async throws(ChatError) -> Message
    {
        let message = try await storing { try await store.message(id: id, userID: userID) }
        guard let message, message.conversationID == conversationID else { throw .notFound }
        if let role, message.role != role { throw .wrongRole(expected: role) }
        return message
    }

    /// Whether `message` is `ancestor` or lies under it.
    private func isUnder(
        _ message: MessageID, _ ancestor: MessageID, conversationID: ConversationID, userID: UserID
    ) async throws(ChatError) -> Bool {
        let all = try await messages(
            conversationID: conversationID, userID: userID, branch: .all, afterID: nil, limit: .max)
        let tree = ConversationTree(all.items)
        return tree.branch(endingAt: message).contains { $0.id == ancestor }
    }

    private func makeJob(for conversation: Conversation, model: ModelInfo, exchange: Exchange) -> GenerationJob {
        var job = GenerationJob(
            conversationID: conversation.id, userID: conversation.userID,
            assistantMessageID: exchange.assistantMessage.id,
            systemPrompt: conversation.systemPrompt, model: model, options: conversation.options,
            history: exchange.history)
        job.usesKnowledge = conversation.usesKnowledge
        job.toolServers = conversation.toolServers
        return job
    }

    private func validTitle(_ title: String) throws(ChatError) -> String {
        let trimmed = Self.storable(title).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= Self.maxTitleLength else { throw .invalidTitle }
        return trimmed
    }

    /// `text` without NUL characters, which SQLite would take for its end: checked as it will be stored, never cut
    /// short.
    private static func storable(_ text: String) -> String {
        text.unicodeScalars.contains("\0")
            ? String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 != "\0" })) : text
    }

    private func storing<T>(_ access: () async throws -> T) async throws(ChatError) -> T {
        do {
            return try await access()
        } catch {
            throw map(error)
        }
    }

    /// The chat error a storage or generation error is refused as (a storage fault is logged).
    func map(_ error: any Error) -> ChatError {
        switch error {
        case let error as ChatError: return error
        case GenerationError.busy, StoreError.replyRunning: return .busy
        case GenerationError.shuttingDown: return .shuttingDown
        case GenerationError.atCapacity: return .atCapacity
        case StoreError.notFound: return .notFound
        case StoreError.budgetExceeded(let status): return .budgetExceeded(status)
        case StoreError.budgetReplyRunning: return .budgetReplyRunning
        case StoreError.storageFull(let status): return .storageFull(status)
        case StoreError.diskFull:
            logger.critical("the disk holding the database is full")
            return .diskFull
        default:
            logger.error("chat storage failed", metadata: ["error": "\(error)"])
            return .storage
        }
    }
}
