import Foundation

/// The row id of a saved prompt.
public typealias PromptID = Int64

/// A saved prompt: a title, the `/command` that calls it (unique among its author's) and text that may hold
/// `{{variables}}`, seen by its author alone, everyone, or the members of chosen groups.
public struct Prompt: Sendable, Equatable {
    public var id: PromptID
    public var authorID: UserID
    public var title: String
    public var command: String
    public var body: String
    public var visibility: Visibility
    /// The groups it is shared with, when `visibility` is `.groups`.
    public var groupIDs: [GroupID]
    public var createdAt: Date
    public var updatedAt: Date

    /// Creates a prompt value.
    public init(
        id: PromptID, authorID: UserID, title: String, command: String, body: String,
        visibility: Visibility = .private, groupIDs: [GroupID] = [], createdAt: Date = Date(),
        updatedAt: Date = Date()
    ) {
        self.id = id
        self.authorID = authorID
        self.title = title
        self.command = command
        self.body = body
        self.visibility = visibility
        self.groupIDs = groupIDs
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The names of the variables its text holds, each once, in the order they first appear.
    public var variables: [String] { PromptText.variables(in: body) }
}
