/// What the replies of conversations started with one assistant cost in a period.
public struct AssistantSpend: Sendable, Equatable {
    public var name: String
    public var conversations: Int
    public var replies: Int
    public var costMicros: Int64

    /// Creates a row.
    public init(name: String, conversations: Int, replies: Int, costMicros: Int64) {
        self.name = name
        self.conversations = conversations
        self.replies = replies
        self.costMicros = costMicros
    }
}
