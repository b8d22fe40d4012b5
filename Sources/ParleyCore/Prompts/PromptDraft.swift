import Foundation

/// What a person writes into a prompt, before it is checked: every field but its id and author.
public struct PromptDraft: Sendable, Equatable {
    /// The longest title, in characters.
    public static let maxTitleLength = 100
    /// The longest command, in characters.
    public static let maxCommandLength = 32
    /// The longest text, in characters.
    public static let maxBodyLength = 20_000

    public var title: String
    public var command: String
    public var body: String
    public var visibility: Visibility
    public var groupIDs: [GroupID]

    /// Creates a draft.
    public init(
        title: String, command: String, body: String, visibility: Visibility = .private, groupIDs: [GroupID] = []
    ) {
        self.title = title
        self.command = command
        self.body = body
        self.visibility = visibility
        self.groupIDs = groupIDs
    }

    /// The draft of an existing prompt (to change some of its fields).
    public init(_ prompt: Prompt) {
        self.init(
            title: prompt.title, command: prompt.command, body: prompt.body, visibility: prompt.visibility,
            groupIDs: prompt.groupIDs)
    }

    /// The draft trimmed (the title, and the command without a leading `/`), or `.invalid` naming the first field out
    /// of its limits: a title of 1 to 100 characters, a command of 1 to 32 lowercase letters, digits and hyphens, a
    /// text of 1 to 20,000 characters, and groups chosen exactly when sharing with groups.
    func checked() throws(PromptError) -> PromptDraft {
        var draft = self
        draft.title = title.trimmingCharacters(in: .whitespacesAndNewlines)
        let command = command.trimmingCharacters(in: .whitespaces)
        draft.command = command.hasPrefix("/") ? String(command.dropFirst()) : command
        draft.groupIDs = Array(Set(groupIDs)).sorted()
        guard (1...Self.maxTitleLength).contains(draft.title.count) else {
            throw .invalid("A title needs 1 to \(Self.maxTitleLength) characters.")
        }
        guard (1...Self.maxCommandLength).contains(draft.command.utf8.count),
            draft.command.utf8.allSatisfy(Self.isCommandByte)
        else {
            throw .invalid(
                "A command needs 1 to \(Self.maxCommandLength) lowercase letters, digits or hyphens, as in /summarize.")
        }
        guard !body.allSatisfy(\.isWhitespace), body.count <= Self.maxBodyLength else {
            throw .invalid("The text needs 1 to \(Self.maxBodyLength) characters.")
        }
        guard draft.visibility == .groups || draft.groupIDs.isEmpty else {
            throw .invalid("Groups are chosen only when sharing with groups.")
        }
        guard draft.visibility != .groups || !draft.groupIDs.isEmpty else {
            throw .invalid("Choose at least one group to share with.")
        }
        return draft
    }

    /// Whether a byte may be part of a command: a lowercase ASCII letter, a digit or a hyphen.
    private static func isCommandByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: "-")
    }
}
