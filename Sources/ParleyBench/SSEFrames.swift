import Foundation

/// A reply's Server-Sent Events read as they arrive, in chunks cut anywhere: the `token` text, the last event id,
/// the `done` status, and how many events came with an id not after `after` (repeats, on a resumed stream).
struct SSEFrames {
    /// Ids up to this one were received before; a resumed stream must not send them again.
    let after: Int64
    private var pending: [UInt8] = []
    private(set) var text = ""
    private(set) var tokens = 0
    private(set) var lastID: Int64?
    private(set) var doneStatus: String?
    private(set) var repeats = 0

    /// A reader of a stream, resumed after the event `after` (0: a new stream).
    init(after: Int64 = 0) {
        self.after = after
    }

    /// Reads the complete events in `bytes` (with what an earlier chunk left unfinished).
    mutating func feed<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        pending.append(contentsOf: bytes)
        while let end = pending.indices.dropLast().first(where: { pending[$0] == 10 && pending[$0 + 1] == 10 }) {
            read(String(decoding: pending[..<end], as: UTF8.self))
            pending.removeFirst(end + 2)
        }
    }

    /// Reads one event's lines (`id:`, `event:`, `data:`; comments and `retry:` are skipped).
    private mutating func read(_ frame: String) {
        var id: Int64?, name = "", data = ""
        for line in frame.split(separator: "\n") {
            if line.hasPrefix("id: ") { id = Int64(line.dropFirst(4)) }
            if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
            if line.hasPrefix("data: ") { data += line.dropFirst(6) }
        }
        guard let id else { return }
        if id <= after { repeats += 1 }
        lastID = id
        let json = (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:]
        switch name {
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
