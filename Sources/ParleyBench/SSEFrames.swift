import Foundation
import ParleyCore
import ParleyProviders

/// A reply's Server-Sent Events read as they arrive, in chunks cut anywhere: the `token` text, the last event id,
/// the `done` status, how many events came with an id not after `after` (repeats, on a resumed stream), and the reply
/// they belong to: an event without `message_id` belongs to the reply the stream named last.
struct SSEFrames {
    /// Ids up to this one were received before; a resumed stream must not send them again.
    let after: EventID?
    private var parser = SSEParser()
    private(set) var text = ""
    private(set) var tokens = 0
    private(set) var lastID: EventID?
    private(set) var doneStatus: String?
    private(set) var repeats = 0
    /// The reply the stream named last.
    private(set) var reply: MessageID?
    /// Events without `message_id` that came before any event named their reply (a stream must never send one).
    private(set) var unattributed = 0

    /// A reader of a stream, resumed after the event `after` (nil: a new stream).
    init(after: EventID? = nil) {
        self.after = after
    }

    /// Reads the complete events in `bytes` (with what an earlier chunk left unfinished).
    mutating func feed(_ bytes: some Collection<UInt8>) {
        for message in parser.feed(bytes) { read(message) }
    }

    /// Reads one event; those without an id (comments, `title`) are skipped.
    private mutating func read(_ message: SSEMessage) {
        guard let id = message.id.flatMap(EventID.init) else { return }
        if let after, id <= after { repeats += 1 }
        lastID = id
        let json = (try? JSONSerialization.jsonObject(with: Data(message.data.utf8))) as? [String: Any] ?? [:]
        if let named = json["message_id"] as? Int {
            reply = MessageID(named)
        } else if reply == nil {
            unattributed += 1
        }
        switch message.event {
        case "token":
            tokens += 1
            text += json["text"] as? String ?? ""
        case "done":
            doneStatus = json["status"] as? String
        default:
            break
        }
    }
}
