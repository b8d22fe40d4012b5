/// One search result: a message (or a conversation's title) of the user's that matches the query.
public struct SearchHit: Sendable, Equatable {
    /// Marks the start of a matched span in `title` and `snippet` (a private-use character, never rendered).
    public static let markStart: Character = "\u{E000}"
    /// Marks the end of a matched span.
    public static let markEnd: Character = "\u{E001}"

    public var conversationID: ConversationID
    /// The conversation's title, with its matches marked when the title itself matched.
    public var title: String
    /// The matching message; nil when the title matched.
    public var messageID: MessageID?
    /// Who wrote the matching message.
    public var role: MessageRole?
    /// An excerpt of the matching message around the matches, marked; empty when the title matched.
    public var snippet: String
    /// Whether the conversation is archived.
    public var archived: Bool
    /// The bm25 rank: lower is better.
    public var score: Double

    /// Creates a hit.
    public init(
        conversationID: ConversationID, title: String, messageID: MessageID?, role: MessageRole?, snippet: String,
        archived: Bool, score: Double
    ) {
        self.conversationID = conversationID
        self.title = title
        self.messageID = messageID
        self.role = role
        self.snippet = snippet
        self.archived = archived
        self.score = score
    }
}
