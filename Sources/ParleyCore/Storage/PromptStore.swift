/// Saved prompts, with whom each is shared. A prompt is visible to a user when it is theirs, shared with everyone, or
/// shared with a group of theirs; every prompt is visible to an admin.
public protocol PromptStore: Sendable {
    /// Stores a new prompt (its id and dates are the store's) and returns it; `.duplicate` when its author has another
    /// with its command.
    func createPrompt(_ prompt: Prompt) async throws(StoreError) -> Prompt
    /// Replaces a prompt's fields and groups; `.notFound` when it is gone, `.duplicate` as for `createPrompt`.
    func updatePrompt(_ prompt: Prompt) async throws(StoreError) -> Prompt
    /// Deletes a prompt; `.notFound` when it is gone.
    func deletePrompt(id: PromptID) async throws(StoreError)
    /// The prompt if it is visible to the user, else nil.
    func prompt(id: PromptID, visibleTo userID: UserID, isAdmin: Bool) async throws(StoreError) -> Prompt?
    /// Up to `limit` prompts visible to the user whose command or title holds `query` (ignoring ASCII case; every one
    /// for an empty query): those whose command starts with it first, then by command.
    func prompts(visibleTo userID: UserID, isAdmin: Bool, matching query: String, limit: Int) async throws(StoreError)
        -> [Prompt]
    /// The commands of the user's own prompts.
    func commands(authorID: UserID) async throws(StoreError) -> Set<String>
}
