/// What a person writes into an assistant, before it is checked: every field but its id, author and version.
public struct AssistantDraft: Sendable, Equatable {
    /// The longest name, in characters.
    public static let maxNameLength = 100
    /// The longest description, in characters.
    public static let maxDescriptionLength = 500
    /// The longest icon (an emoji or two), in characters.
    public static let maxIconLength = 4
    /// The most conversation starters.
    public static let maxStarters = 4
    /// The longest starter, in characters.
    public static let maxStarterLength = 300

    public var name: String
    public var description: String
    public var icon: String
    public var instructions: String
    public var model: String?
    public var options: GenerationOptions
    public var starters: [String]
    public var visibility: Visibility
    public var groupIDs: [GroupID]

    /// Creates a draft.
    public init(
        name: String, description: String = "", icon: String = "", instructions: String = "", model: String? = nil,
        options: GenerationOptions = GenerationOptions(), starters: [String] = [], visibility: Visibility = .private,
        groupIDs: [GroupID] = []
    ) {
        self.name = name
        self.description = description
        self.icon = icon
        self.instructions = instructions
        self.model = model
        self.options = options
        self.starters = starters
        self.visibility = visibility
        self.groupIDs = groupIDs
    }

    /// The draft of an existing assistant (to change some of its fields).
    public init(_ assistant: Assistant) {
        self.init(
            name: assistant.name, description: assistant.description, icon: assistant.icon,
            instructions: assistant.instructions, model: assistant.model, options: assistant.options,
            starters: assistant.starters, visibility: assistant.visibility, groupIDs: assistant.groupIDs)
    }

    /// The draft trimmed (blank starters dropped), or `.invalidAssistant` naming the first field out of its limits.
    func checked() throws(ChatError) -> AssistantDraft {
        var draft = self
        draft.name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        draft.description = description.trimmingCharacters(in: .whitespacesAndNewlines)
        draft.icon = icon.trimmingCharacters(in: .whitespacesAndNewlines)
        draft.starters = starters.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        guard (1...Self.maxNameLength).contains(draft.name.count) else {
            throw .invalidAssistant("A name needs 1 to \(Self.maxNameLength) characters.")
        }
        guard draft.description.count <= Self.maxDescriptionLength else {
            throw .invalidAssistant("A description has at most \(Self.maxDescriptionLength) characters.")
        }
        guard draft.icon.count <= Self.maxIconLength, !draft.icon.contains(where: { $0.isASCII && !$0.isNumber }) else {
            throw .invalidAssistant("An icon is an emoji or two.")
        }
        guard draft.instructions.count <= ChatService.maxSystemPromptLength else { throw .systemPromptTooLong }
        guard draft.starters.count <= Self.maxStarters,
            draft.starters.allSatisfy({ $0.count <= Self.maxStarterLength })
        else {
            throw .invalidAssistant(
                "An assistant has up to \(Self.maxStarters) starters of up to \(Self.maxStarterLength) characters.")
        }
        guard draft.visibility == .groups || draft.groupIDs.isEmpty else {
            throw .invalidAssistant("Groups are chosen only when sharing with groups.")
        }
        guard draft.visibility != .groups || !draft.groupIDs.isEmpty else {
            throw .invalidAssistant("Choose at least one group to share with.")
        }
        return draft
    }
}
