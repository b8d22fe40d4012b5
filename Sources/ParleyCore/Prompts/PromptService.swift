import Logging

/// The prompt library as its users meet it: prompts seen and used by whom they are shared with, changed by their
/// author or an admin alone, duplicated by anyone who sees them, and filled in to become a message.
public final class PromptService: Sendable {
    /// The most prompts one person may write.
    public static let maxPromptsPerUser = 200
    /// The most prompts one list (a page, an API response) holds.
    public static let maxListed = 200

    let store: any PromptStore
    /// Whether people may share their own prompts; when not, only admins may make one shared.
    let usersMayShare: Bool
    let logger: Logger

    /// Creates the service over the store; storage faults are logged to `logger`.
    public init(store: any PromptStore, usersMayShare: Bool = true, logger: Logger = Logger(label: "parley.prompts")) {
        self.store = store
        self.usersMayShare = usersMayShare
        self.logger = logger
    }

    /// Up to `limit` of the prompts `user` may use whose command or title holds `query` (a leading `/` ignored).
    public func visible(to user: User, matching query: String = "", limit: Int = maxListed) async throws(PromptError)
        -> [Prompt]
    {
        try await storing {
            try await store.prompts(
                visibleTo: user.id, isAdmin: user.isAdmin, matching: String(query.trimmingPrefix("/")), limit: limit)
        }
    }

    /// The prompt if `user` may use it, else `.notFound` (never saying whether it exists).
    public func prompt(_ id: PromptID, for user: User) async throws(PromptError) -> Prompt {
        guard
            let prompt = try await storing({ try await store.prompt(id: id, visibleTo: user.id, isAdmin: user.isAdmin) }
            )
        else { throw .notFound }
        return prompt
    }

    /// Whether `user` may change (or delete) the prompt: its author or an admin.
    public static func canChange(_ prompt: Prompt, _ user: User) -> Bool {
        prompt.authorID == user.id || user.isAdmin
    }

    /// Makes a prompt of `user`'s from the draft, while they have fewer than `maxPromptsPerUser`.
    public func create(_ draft: PromptDraft, by user: User) async throws(PromptError) -> Prompt {
        let draft = try checked(draft, user: user)
        let count = try await storing { try await store.commands(authorID: user.id).count }
        guard count < Self.maxPromptsPerUser else {
            throw .invalid("You have \(Self.maxPromptsPerUser) prompts, the most one person may have.")
        }
        return try await storing(command: draft.command) {
            try await store.createPrompt(Self.prompt(draft, id: 0, author: user.id))
        }
    }

    /// Replaces the prompt's fields with the draft's; `.readOnly` for someone who may only use it.
    public func update(_ id: PromptID, with draft: PromptDraft, by user: User) async throws(PromptError) -> Prompt {
        let current = try await prompt(id, for: user)
        guard Self.canChange(current, user) else { throw .readOnly }
        let draft = try checked(draft, user: user)
        return try await storing(command: draft.command) {
            try await store.updatePrompt(Self.prompt(draft, id: id, author: current.authorID))
        }
    }

    /// Deletes the prompt; `.readOnly` for someone who may only use it.
    public func delete(_ id: PromptID, by user: User) async throws(PromptError) {
        let current = try await prompt(id, for: user)
        guard Self.canChange(current, user) else { throw .readOnly }
        try await storing { try await store.deletePrompt(id: id) }
    }

    /// A private copy of a prompt `user` may use, as theirs: its title marked as a copy, its command numbered when
    /// they have one like it already (`summarize-2`).
    public func duplicate(_ id: PromptID, by user: User) async throws(PromptError) -> Prompt {
        var draft = PromptDraft(try await prompt(id, for: user))
        let taken = try await storing { try await store.commands(authorID: user.id) }
        draft.title = String((draft.title + " (copy)").prefix(PromptDraft.maxTitleLength))
        draft.command = Self.freeCommand(like: draft.command, taken: taken)
        draft.visibility = .private
        draft.groupIDs = []
        return try await create(draft, by: user)
    }

    /// The text of a prompt `user` may use with its variables filled from `values`: every variable needs a value,
    /// no other may be given, and the text must fit in a message.
    public func fill(_ id: PromptID, with values: [String: String], for user: User) async throws(PromptError)
        -> String
    {
        try PromptText.fill(try await prompt(id, for: user).body, with: values, limit: ChatService.maxMessageLength)
    }

    /// `command` when it is free, else the first of `command-2`, `command-3`… that is (shortened to fit).
    static func freeCommand(like command: String, taken: Set<String>) -> String {
        var (candidate, number) = (command, 1)
        while taken.contains(candidate) {
            number += 1
            let suffix = "-\(number)"
            candidate = command.prefix(PromptDraft.maxCommandLength - suffix.count) + suffix
        }
        return candidate
    }

    /// The draft checked, and shared only by an admin when people may not share their own.
    private func checked(_ draft: PromptDraft, user: User) throws(PromptError) -> PromptDraft {
        let draft = try draft.checked()
        guard draft.visibility == .private || usersMayShare || user.isAdmin else {
            throw .invalid("Only admins share prompts on this server; keep it to yourself or ask one.")
        }
        return draft
    }

    /// The prompt a checked draft describes, with its id and author.
    private static func prompt(_ draft: PromptDraft, id: PromptID, author: UserID) -> Prompt {
        Prompt(
            id: id, authorID: author, title: draft.title, command: draft.command, body: draft.body,
            visibility: draft.visibility, groupIDs: draft.groupIDs)
    }

    /// Runs a store access, its errors as the service's: a taken unique key is `command` taken; a fault is logged.
    private func storing<T>(command: String = "", _ access: () async throws -> T) async throws(PromptError) -> T {
        do {
            return try await access()
        } catch {
            switch error {
            case StoreError.notFound: throw .notFound
            case StoreError.duplicate: throw .commandTaken(command)
            case StoreError.diskFull:
                logger.critical("the disk holding the database is full")
                throw .diskFull
            default:
                logger.error("prompt storage failed", metadata: ["error": "\(error)"])
                throw .storage
            }
        }
    }
}
