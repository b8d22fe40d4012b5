/// An event of a reply as it travels between instances: its conversation, its id, its kind and the fields of its data
/// after `message_id` (as the event log keeps it).
public struct RelayedEvent: Sendable, Equatable {
    public var conversationID: ConversationID
    public var id: EventID
    public var kind: StreamEvent.Kind
    public var fields: [UInt8]

    /// Creates a relayed event from its parts.
    public init(conversationID: ConversationID, id: EventID, kind: StreamEvent.Kind, fields: [UInt8]) {
        self.conversationID = conversationID
        self.id = id
        self.kind = kind
        self.fields = fields
    }

    /// A stream event of a conversation, as relayed.
    public init(_ event: StreamEvent, id: EventID, conversationID: ConversationID) {
        self.init(conversationID: conversationID, id: id, kind: event.kind, fields: Array(event.otherFields.members))
    }
}

/// What reaches an instance from the other instances serving its database.
public enum RelayMessage: Sendable, Equatable {
    /// An event of a reply another instance runs (or of one whose owner's lease ran out).
    case event(RelayedEvent)
    /// Someone asked another instance to stop the reply running in this conversation.
    case stop(ConversationID)
    /// Someone allowed or denied, on another instance, a tool call the conversation's reply waits on.
    case decision(ConversationID, callID: String, allow: Bool)
    /// A conversation's new title, as the `title` frame its streams send.
    case title(ConversationID, frame: String)
    /// Messages may have been lost (the relay's connection was down): the replies heard so far may miss events.
    case mayHaveMissed
}

/// How the instances that serve one database share their replies: each sends the events of the replies it runs to the
/// others, so that a stream on any instance follows any reply; a Stop reaches the instance that runs the reply; and a
/// reply whose instance died is ended by another. Without a relay (the default, one instance), the engine's own
/// conversation hub is all there is.
public protocol ReplyRelay: Sendable {
    /// Sends an event of a reply this instance runs to the other instances, in the order given; never waits.
    func publish(_ event: RelayedEvent)
    /// Sends a conversation's new title frame to the other instances; never waits.
    func publishTitle(_ frame: String, conversationID: ConversationID)
    /// Asks whichever instance runs the reply of a conversation to stop it; never waits.
    func requestStop(_ conversationID: ConversationID)
    /// Passes the user's answer to a tool call the conversation's reply waits on to whichever instance runs it; never
    /// waits.
    func requestDecision(_ conversationID: ConversationID, callID: String, allow: Bool)
    /// Runs until cancelled: hands what the other instances send to `deliver`, in order, keeps this instance's replies
    /// marked as alive, and ends (as `interrupted`) the replies of an instance that stopped doing so.
    func run(delivering deliver: @escaping @Sendable (RelayMessage) -> Void) async
}
