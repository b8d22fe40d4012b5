/// What wakes a waiting event stream.
enum Wake: Sendable {
    case frames
    case heartbeat
    case ended
    /// The stream must start again (the reply it follows runs elsewhere and this instance missed some of its events):
    /// it ends at once, and the client's reconnection gets the saved text first.
    case restart
}

/// One conversation's part of the hub: its reply, the log of its current (or last) reply, its streams and who waits
/// for more, and its title request.
struct EventChannel {
    /// The reply the log belongs to.
    var messageID: MessageID?
    /// The events of that reply, in order; `done` is last once it finished.
    var log = EventLog()
    /// The reply being generated, if any.
    var running: ReplyRun?
    /// The log's reply runs on another instance, whose events the relay brings.
    var runsElsewhere = false
    /// The log misses some of that reply's events: its `token` events hold their text alone, and a stream that joins
    /// starts from the saved text.
    var isGapped = false
    /// A reply is about to start (its messages are being written).
    var isReserved = false
    /// Streams waiting for the next frame, by subscriber id.
    var waiters: [Int: CheckedContinuation<Wake, Never>] = [:]
    /// Open event streams of this conversation.
    var subscriberCount = 0
    /// The title request running, which a new send ends: its id and how to end it.
    var title: (id: Int, interrupt: AsyncStream<Never>.Continuation)?
    /// The conversation's latest new title as a `title` frame, and how many titles were announced; a stream sends it
    /// once when it has seen fewer.
    var announcedTitle: (count: Int, frame: String)?
    /// How many titles were announced to this channel's streams.
    var titleCount: Int { announcedTitle?.count ?? 0 }

    /// Whether nothing needs this channel any more.
    var isUnused: Bool { running == nil && !runsElsewhere && !isReserved && subscriberCount == 0 && title == nil }

    /// Whether the log's reply still runs, here or elsewhere.
    var isRunning: Bool { running != nil || runsElsewhere }

    /// Takes every waiter, to be resumed outside the lock.
    mutating func takeWaiters() -> [CheckedContinuation<Wake, Never>] {
        defer { waiters.removeAll(keepingCapacity: true) }
        return Array(waiters.values)
    }
}
