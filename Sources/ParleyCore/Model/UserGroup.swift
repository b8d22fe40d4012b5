import Foundation

/// A group of users: made in Parley or copied from the identity provider, with the restricted models it opens to
/// its members and an optional monthly budget for the members' spend together.
public struct UserGroup: Sendable, Equatable {
    public var id: GroupID
    public var name: String
    /// Whether single sign-on feeds the group's members (from the provider's groups claim).
    public var fromSSO: Bool
    public var monthlyBudgetMicros: Int64?
    /// The models the group opens to its members.
    public var models: [String]
    public var memberCount: Int

    /// Creates a group value.
    public init(
        id: GroupID, name: String, fromSSO: Bool, monthlyBudgetMicros: Int64?, models: [String], memberCount: Int
    ) {
        self.id = id
        self.name = name
        self.fromSSO = fromSSO
        self.monthlyBudgetMicros = monthlyBudgetMicros
        self.models = models
        self.memberCount = memberCount
    }
}

/// Which models a user may use: every model no group restricts, and the restricted ones a group of theirs opens.
public struct ModelAccess: Sendable, Equatable {
    /// The models some group restricts.
    public var restricted: Set<String>
    /// The restricted models one of the user's groups opens to them.
    public var granted: Set<String>

    /// Creates an access value.
    public init(restricted: Set<String>, granted: Set<String>) {
        self.restricted = restricted
        self.granted = granted
    }

    /// Access where no model is restricted.
    public static let unrestricted = ModelAccess(restricted: [], granted: [])

    /// Whether the user may use `model`.
    public func allows(_ model: String) -> Bool {
        !restricted.contains(model) || granted.contains(model)
    }
}
