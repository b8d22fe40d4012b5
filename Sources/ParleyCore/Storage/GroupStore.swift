/// Groups as admins manage them: members, the restricted models each opens, and each group's monthly budget.
public protocol GroupStore: Sendable {
    /// Every group, by name.
    func groups() async throws(StoreError) -> [UserGroup]
    /// One group, or nil.
    func group(id: GroupID) async throws(StoreError) -> UserGroup?
    /// The group's members, by email.
    func members(groupID: GroupID) async throws(StoreError) -> [User]
    /// Creates a group made in Parley; `.duplicate` when the name (ignoring case) is taken.
    func createGroup(name: String) async throws(StoreError) -> UserGroup
    /// Deletes the group (its members stay, and the models it opened are restricted to the other groups, if any).
    func deleteGroup(id: GroupID) async throws(StoreError)
    /// Adds the user to the group; `.notFound` when either is missing.
    func addMember(userID: UserID, groupID: GroupID) async throws(StoreError)
    /// Takes the user out of the group.
    func removeMember(userID: UserID, groupID: GroupID) async throws(StoreError)
    /// Makes `models` exactly the restricted models the group opens.
    func setModels(_ models: [String], groupID: GroupID) async throws(StoreError)
    /// Sets the group's monthly budget (nil: none).
    func setMonthlyBudget(_ micros: Int64?, groupID: GroupID) async throws(StoreError)
    /// Each group's members' spend since `month` (first day), in micro-dollars, by group id.
    func spend(since month: UsageDay) async throws(StoreError) -> [GroupID: Int64]
}
