/// The events of one reply, for the streams that read them (each at its own place) and for `Last-Event-ID` resumes.
/// An event is kept as its kind, its sequence and the fields of its data after `message_id`, back to back in one
/// buffer; its SSE frame is built when a stream reads it. The `id:`, `event:` and `message_id` that frames repeat
/// were ~60 bytes an event, most of a running reply's log.
struct EventLog {
    /// Where an event's fields end in `bytes`, and what rebuilds the rest of its frame.
    struct Entry: Sendable {
        var end: Int
        /// The event's place in its reply (an `EventID` caps it under ten million).
        var sequence: Int32
        var kind: StreamEvent.Kind
    }

    private var messageID: MessageID = 0
    private var bytes: [UInt8] = []
    private var entries: [Entry] = []

    /// How many events it holds.
    var count: Int { entries.count }

    /// Adds an event of the log's reply (its kind and the fields of its data after `message_id`) with its id. The
    /// buffer grows by a quarter at a time, not twice over as an array does: a log is kept for as long as its reply
    /// runs, and the spare half of a doubled buffer was ~1 KB of every open stream.
    mutating func append(fields: some Collection<UInt8>, kind: StreamEvent.Kind, id: EventID) {
        messageID = id.messageID
        let needed = bytes.count + fields.count
        if needed > bytes.capacity { bytes.reserveCapacity(max(needed, bytes.count + bytes.count / 4)) }
        bytes.append(contentsOf: fields)
        entries.append(Entry(end: bytes.count, sequence: Int32(id.sequence), kind: kind))
    }

    /// The events from the `index`th on, copied (so that later appends never copy the log, and the frames can be
    /// built outside the lock that guards it).
    func events(from index: Int) -> LoggedEvents {
        let start = index == 0 ? 0 : entries[index - 1].end
        return LoggedEvents(
            messageID: messageID, start: start, bytes: Array(bytes[start...]), entries: Array(entries[index...]))
    }
}

/// Events copied out of a log, to be written as SSE frames.
struct LoggedEvents: Sendable {
    let messageID: MessageID
    /// Where `bytes` began in the log (the entries' ends count from the log's start).
    let start: Int
    let bytes: [UInt8]
    let entries: [EventLog.Entry]

    /// The events' SSE frames, joined. `replyNamed` says whether the stream they go to has named their reply already:
    /// if not, the first of them names it (a `start` does anyway; a stream that resumes mid-reply gets a `token` that
    /// names it), and the `token` and `reasoning` frames after it leave `message_id` out.
    func frames(replyNamed: Bool) -> [UInt8] {
        var frames: [UInt8] = []
        // About 30 bytes of `id:`, `event:` and keys come with each event's fields.
        frames.reserveCapacity(bytes.count + entries.count * 32)
        var from = 0
        var named = replyNamed
        for entry in entries {
            let end = entry.end - start
            StreamEvent.appendFrame(
                id: EventID(messageID: messageID, sequence: Int64(entry.sequence)), kind: entry.kind,
                messageID: named && !entry.kind.alwaysNamesReply ? nil : messageID,
                otherFields: bytes[from..<end], to: &frames)
            named = true
            from = end
        }
        return frames
    }
}
