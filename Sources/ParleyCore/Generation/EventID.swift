import Foundation

/// The `id:` of an event: a per-conversation sequence number built from the reply's message id and the
/// event's place in that reply, so ids only grow within a conversation and survive a restart.
public struct EventID: Sendable, Equatable {
    /// How many events one reply may number; the `done` event always takes the last one.
    static let span: Int64 = 10_000_000
    /// The sequence number of a reply's `done` event.
    public static let doneSequence: Int64 = span - 1

    public var messageID: MessageID
    public var sequence: Int64

    /// Creates an id from its parts.
    public init(messageID: MessageID, sequence: Int64) {
        self.messageID = messageID
        self.sequence = min(sequence, EventID.doneSequence)
    }

    /// Parses a `Last-Event-ID`; nil for anything that is not one of ours.
    public init?(_ text: String) {
        guard let value = Int64(text.trimmingCharacters(in: .whitespaces)), value > 0 else { return nil }
        messageID = value / EventID.span
        sequence = value % EventID.span
    }

    /// The number sent as `id:`.
    public var value: Int64 { messageID * EventID.span + sequence }

    /// Whether this is the id of a reply's `done` event.
    public var isDone: Bool { sequence == EventID.doneSequence }
}
