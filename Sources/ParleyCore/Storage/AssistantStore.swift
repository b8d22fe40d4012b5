/// Assistants, with whom each is shared.
public protocol AssistantStore: Sendable {
    /// Stores a new assistant (its id, version and dates are the store's) and returns it.
    func createAssistant(_ assistant: Assistant) async throws(StoreError) -> Assistant
    /// Replaces an assistant's fields and groups, raising its version; `.notFound` when it is gone.
    func updateAssistant(_ assistant: Assistant) async throws(StoreError) -> Assistant
    /// Deletes an assistant (its conversations keep their copy and its name); `.notFound` when it is gone.
    func deleteAssistant(id: AssistantID) async throws(StoreError)
    /// One assistant, or nil.
    func assistant(id: AssistantID) async throws(StoreError) -> Assistant?
    /// The assistants the user may use: their own, those shared with everyone or with a group of theirs (all of them
    /// for an admin), by name.
    func assistants(visibleTo userID: UserID, isAdmin: Bool) async throws(StoreError) -> [Assistant]
    /// Sets (or, with nil, removes) the assistant's uploaded icon; `.notFound` when it is gone.
    func setIcon(_ icon: AssistantIcon?, assistantID: AssistantID) async throws(StoreError)
    /// The assistant's uploaded icon, if it has one.
    func icon(assistantID: AssistantID) async throws(StoreError) -> AssistantIcon?
    /// How many assistants the user wrote.
    func assistantCount(authorID: UserID) async throws(StoreError) -> Int
    /// The ids of the groups the user belongs to.
    func groupIDs(of userID: UserID) async throws(StoreError) -> Set<GroupID>
}
