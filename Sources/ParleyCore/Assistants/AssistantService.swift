/// Assistants as their users meet them: seen and used by whom they are shared with, changed by their author or an
/// admin alone, duplicated by anyone who sees them, and starting conversations that keep a copy of them.
public final class AssistantService: Sendable {
    /// The most assistants one person may write.
    public static let maxAssistantsPerUser = 100

    let store: any AssistantStore
    let chat: ChatService
    /// Whether people may share their own assistants; when not, only admins may make one shared.
    let usersMayShare: Bool

    /// Creates the service over the store and the chat service (models, access, conversations).
    public init(store: any AssistantStore, chat: ChatService, usersMayShare: Bool = true) {
        self.store = store
        self.chat = chat
        self.usersMayShare = usersMayShare
    }

    /// The assistants `user` may use, by name.
    public func visible(to user: User) async throws(ChatError) -> [Assistant] {
        try await storing { try await store.assistants(visibleTo: user.id, isAdmin: user.isAdmin) }
    }

    /// The assistant if `user` may use it, else `.notFound` (never saying whether it exists).
    public func assistant(_ id: AssistantID, for user: User) async throws(ChatError) -> Assistant {
        guard let assistant = try await storing({ try await store.assistant(id: id) }),
            try await canSee(assistant, user)
        else { throw .notFound }
        return assistant
    }

    /// Whether `user` may change (or delete) the assistant: its author or an admin.
    public static func canChange(_ assistant: Assistant, _ user: User) -> Bool {
        assistant.authorID == user.id || user.isAdmin
    }

    /// Makes an assistant of `user`'s from the draft, its model one they may use and its options in that model's
    /// ranges.
    public func create(_ draft: AssistantDraft, by user: User) async throws(ChatError) -> Assistant {
        let draft = try await checked(draft, user: user)
        let count = try await storing { try await store.assistantCount(authorID: user.id) }
        guard count < Self.maxAssistantsPerUser else {
            throw .invalidAssistant("You have \(Self.maxAssistantsPerUser) assistants, the most one person may have.")
        }
        return try await storing { try await store.createAssistant(Self.assistant(draft, id: 0, author: user.id)) }
    }

    /// Replaces the assistant's fields with the draft's (a new version); `.readOnly` for someone who may only use it.
    public func update(_ id: AssistantID, with draft: AssistantDraft, by user: User) async throws(ChatError)
        -> Assistant
    {
        let current = try await assistant(id, for: user)
        guard Self.canChange(current, user) else { throw .readOnly }
        let draft = try await checked(draft, user: user)
        return try await storing {
            try await store.updateAssistant(Self.assistant(draft, id: id, author: current.authorID))
        }
    }

    /// Deletes the assistant; its conversations keep their copy.
    public func delete(_ id: AssistantID, by user: User) async throws(ChatError) {
        let current = try await assistant(id, for: user)
        guard Self.canChange(current, user) else { throw .readOnly }
        try await storing { try await store.deleteAssistant(id: id) }
    }

    /// The largest uploaded icon, in bytes.
    public static let maxIconBytes = 512 * 1024

    /// Sets the assistant's uploaded icon (checked by its bytes: a whole PNG, JPEG, WebP or GIF of sides up to 1,024),
    /// or with nil removes it; `.readOnly` for someone who may only use it.
    public func setIcon(_ bytes: [UInt8]?, of id: AssistantID, by user: User) async throws(ChatError) {
        let current = try await assistant(id, for: user)
        guard Self.canChange(current, user) else { throw .readOnly }
        var icon: AssistantIcon?
        if let bytes {
            guard bytes.count <= Self.maxIconBytes else {
                throw .invalidAssistant("An icon may be at most \(Self.maxIconBytes / 1024) KB.")
            }
            guard let facts = try? ImageInspector.inspect(bytes), facts.width <= 1_024, facts.height <= 1_024 else {
                throw .invalidAssistant("An icon is a whole PNG, JPEG, WebP or GIF image of sides up to 1,024 pixels.")
            }
            icon = AssistantIcon(contentType: facts.format.contentType, bytes: bytes)
        }
        try await storing { try await store.setIcon(icon, assistantID: id) }
    }

    /// The uploaded icon of an assistant `user` may use (nil when it has none).
    public func icon(of id: AssistantID, for user: User) async throws(ChatError) -> AssistantIcon? {
        _ = try await assistant(id, for: user)
        return try await storing { try await store.icon(assistantID: id) }
    }

    /// A private copy of an assistant `user` may use, as theirs.
    public func duplicate(_ id: AssistantID, by user: User) async throws(ChatError) -> Assistant {
        let original = try await assistant(id, for: user)
        var draft = AssistantDraft(original)
        draft.name = String((draft.name + " (copy)").prefix(AssistantDraft.maxNameLength))
        draft.visibility = .private
        draft.groupIDs = []
        var copy = try await create(draft, by: user)
        if original.hasIconImage, let icon = try await storing({ try await store.icon(assistantID: id) }) {
            try await storing { try await store.setIcon(icon, assistantID: copy.id) }
            copy.hasIconImage = true
        }
        return copy
    }

    /// A new conversation of `user`'s with a copy of the assistant's instructions, model and options, naming the
    /// assistant and its version.
    public func startConversation(with id: AssistantID, by user: User) async throws(ChatError) -> Conversation {
        let assistant = try await assistant(id, for: user)
        return try await chat.createConversation(
            userID: user.id, title: nil, model: assistant.model, systemPrompt: assistant.instructions,
            options: assistant.options,
            assistant: AssistantReference(id: assistant.id, name: assistant.name, version: assistant.version))
    }

    /// The draft checked: its fields within their limits, its model one `user` may use, its options in its ranges,
    /// and its model's id in place of the name asked for (the default when none).
    private func checked(_ draft: AssistantDraft, user: User) async throws(ChatError) -> AssistantDraft {
        var draft = try draft.checked()
        guard draft.visibility == .private || usersMayShare || user.isAdmin else {
            throw .invalidAssistant("Only admins share assistants on this server; keep it to yourself or ask one.")
        }
        let model = try await chat.resolveModel(draft.model, current: nil, userID: user.id)
        guard !model.generatesImages else { throw .modelDrawsImages(model.id) }
        try draft.options.validate(for: model)
        draft.model = model.id
        return draft
    }

    private func canSee(_ assistant: Assistant, _ user: User) async throws(ChatError) -> Bool {
        switch assistant.visibility {
        case _ where assistant.authorID == user.id || user.isAdmin: return true
        case .everyone: return true
        case .private: return false
        case .groups:
            let mine = try await storing { try await store.groupIDs(of: user.id) }
            return !mine.isDisjoint(with: assistant.groupIDs)
        }
    }

    private static func assistant(_ draft: AssistantDraft, id: AssistantID, author: UserID) -> Assistant {
        Assistant(
            id: id, authorID: author, name: draft.name, description: draft.description, icon: draft.icon,
            instructions: draft.instructions, model: draft.model ?? "", options: draft.options,
            starters: draft.starters, visibility: draft.visibility, groupIDs: draft.groupIDs)
    }

    private func storing<T>(_ access: () async throws -> T) async throws(ChatError) -> T {
        do {
            return try await access()
        } catch {
            throw chat.map(error)
        }
    }
}
