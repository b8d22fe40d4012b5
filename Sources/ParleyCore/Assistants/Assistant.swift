import Foundation

/// Who may see and use a shared thing (an assistant, a prompt): its author alone, everyone, or the members of chosen
/// groups. Its author and admins may always.
public enum Visibility: String, Sendable, Codable, CaseIterable {
    case `private`, everyone, groups
}

/// A reusable set-up of a conversation: a name, description and emoji, instructions (the system prompt), a model and
/// its generation options, and up to four conversation starters. Every change raises `version`.
public struct Assistant: Sendable, Equatable {
    public var id: AssistantID
    public var authorID: UserID
    public var name: String
    public var description: String
    public var icon: String
    public var instructions: String
    public var model: String
    public var options: GenerationOptions
    public var starters: [String]
    public var visibility: Visibility
    /// The groups it is shared with, when `visibility` is `.groups`.
    public var groupIDs: [GroupID]
    public var version: Int
    /// Whether it has an uploaded icon (shown in place of the emoji).
    public var hasIconImage: Bool
    public var createdAt: Date
    public var updatedAt: Date

    /// Creates an assistant value.
    public init(
        id: AssistantID, authorID: UserID, name: String, description: String = "", icon: String = "",
        instructions: String = "", model: String, options: GenerationOptions = GenerationOptions(),
        starters: [String] = [], visibility: Visibility = .private, groupIDs: [GroupID] = [], version: Int = 1,
        hasIconImage: Bool = false, createdAt: Date = Date(), updatedAt: Date = Date()
    ) {
        self.id = id
        self.authorID = authorID
        self.name = name
        self.description = description
        self.icon = icon
        self.instructions = instructions
        self.model = model
        self.options = options
        self.starters = starters
        self.visibility = visibility
        self.groupIDs = groupIDs
        self.version = version
        self.hasIconImage = hasIconImage
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// An assistant's uploaded icon: its media type and bytes.
public struct AssistantIcon: Sendable, Equatable {
    public var contentType: String
    public var bytes: [UInt8]

    /// Creates an icon.
    public init(contentType: String, bytes: [UInt8]) {
        self.contentType = contentType
        self.bytes = bytes
    }
}

/// Which assistant (and which version of it) a conversation was started with; its name as it was then.
public struct AssistantReference: Sendable, Equatable {
    public var id: AssistantID?
    public var name: String
    public var version: Int

    /// Creates a reference; `id` is nil once the assistant was deleted.
    public init(id: AssistantID?, name: String, version: Int) {
        self.id = id
        self.name = name
        self.version = version
    }
}
