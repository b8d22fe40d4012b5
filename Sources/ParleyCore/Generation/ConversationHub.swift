import Synchronization

/// The conversations' shared state: each conversation's channel (its reserved or running reply, the event log of its
/// current reply, its open streams and those waiting for more, a title request in flight), the running replies, and
/// whether the server is shutting down. The hub is the only holder of its lock and calls nothing while holding it.
/// Lock order: a reply's own lock (`ReplyRun.state`) may be held while calling into the hub, never the reverse.
/// With a relay, the hub sends its replies' events to the other instances and keeps the logs of theirs.
final class ConversationHub: Sendable {
    private struct State {
        var channels: [ConversationID: EventChannel] = [:]
        var running: [MessageID: ReplyRun] = [:]
        /// The last id given to a stream or a title request.
        var nextID = 0
        var endedStreams: Set<Int> = []
        var isShuttingDown = false
        /// Conversations reserved whose reply has not been launched yet (they count toward the limit).
        var reservations = 0

        /// Drops a conversation's channel when no reply, title or stream needs it.
        mutating func removeIfUnused(_ conversationID: ConversationID) {
            if channels[conversationID]?.isUnused == true { channels[conversationID] = nil }
        }
    }

    private let state = Mutex(State())
    /// Where this instance's replies' events go for the other instances; nil when there are none.
    let relay: (any ReplyRelay)?
    /// How many replies run now (read on every `token` event, so kept out of the lock).
    private let runningCount = Atomic<Int>(0)

    /// Creates a hub whose replies' events also go to `relay`.
    init(relay: (any ReplyRelay)? = nil) {
        self.relay = relay
    }

    /// How many replies run now.
    var runningReplyCount: Int { runningCount.load(ordering: .relaxed) }

    /// The replies running now.
    var runningReplies: [ReplyRun] { state.withLock { Array($0.running.values) } }

    /// How many event streams are open.
    var streamCount: Int { state.withLock { $0.channels.values.reduce(0) { $0 + $1.subscriberCount } } }

    // MARK: Replies

    /// Reserves a conversation for a reply about to be written and returns the title request running there, which the
    /// caller ends (the user's new message goes first). Throws `.shuttingDown`, `.busy` when a reply runs or is
    /// reserved there, or `.atCapacity` when `limit` replies run or are reserved.
    func reserve(
        _ conversationID: ConversationID,
        limit: Int?
    ) throws(GenerationError) -> AsyncStream<Never>.Continuation? {
        try state.withLock { state throws(GenerationError) in
            guard !state.isShuttingDown else { throw .shuttingDown }
            var channel = state.channels[conversationID] ?? EventChannel()
            // A reply heard of from another instance does not count: the database refuses a second one, and the hub's
            // news of it may be stale.
            guard channel.running == nil, !channel.isReserved else { throw .busy }
            if let limit, state.running.count + state.reservations >= limit { throw .atCapacity }
            channel.isReserved = true
            state.reservations += 1
            let title = channel.title
            channel.title = nil
            state.channels[conversationID] = channel
            return title?.interrupt
        }
    }

    /// Gives up a reservation whose reply was never written.
    func cancelReservation(_ conversationID: ConversationID) {
        state.withLock { state in
            state.channels[conversationID]?.isReserved = false
            state.reservations -= 1
            state.removeIfUnused(conversationID)
        }
    }

    /// Turns a conversation's reservation into its running reply, with a new event log, and wakes its streams.
    func launch(_ reply: ReplyRun) {
        let job = reply.job
        let waiters = state.withLock { state in
            var channel = state.channels[job.conversationID] ?? EventChannel()
            channel.isReserved = false
            state.reservations -= 1
            channel.running = reply
            channel.runsElsewhere = false
            channel.isGapped = false
            channel.messageID = job.assistantMessageID
            channel.log = EventLog()
            state.running[job.assistantMessageID] = reply
            runningCount.add(1, ordering: .relaxed)
            let waiters = channel.takeWaiters()
            state.channels[job.conversationID] = channel
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: .frames) }
    }

    /// The reply running in a conversation, if any.
    func runningReply(in conversationID: ConversationID) -> ReplyRun? {
        state.withLock { $0.channels[conversationID]?.running }
    }

    /// Appends an event to a conversation's log and wakes its waiting streams; the caller holds the reply's lock, so
    /// that a reply's events keep their order.
    func append(_ event: StreamEvent, id: EventID, conversationID: ConversationID) {
        let fields = event.otherFields.members
        let waiters = state.withLock { state in
            state.channels[conversationID]?.log.append(fields: fields, kind: event.kind, id: id)
            return state.channels[conversationID]?.takeWaiters() ?? []
        }
        relay?.publish(RelayedEvent(conversationID: conversationID, id: id, kind: event.kind, fields: Array(fields)))
        for waiter in waiters { waiter.resume(returning: .frames) }
    }

    /// Ends a running reply: appends its `done` and releases the conversation at once, so that whoever sees `done` sees
    /// nothing running there. During a shutdown the conversation's streams end once they have sent it.
    func end(_ reply: ReplyRun, done: StreamEvent) {
        let job = reply.job
        let id = EventID(messageID: job.assistantMessageID, sequence: EventID.doneSequence)
        let fields = done.otherFields.members
        let (waiters, wake) = state.withLock { state in
            state.channels[job.conversationID]?.log.append(fields: fields, kind: .done, id: id)
            state.running[job.assistantMessageID] = nil
            runningCount.subtract(1, ordering: .relaxed)
            state.channels[job.conversationID]?.running = nil
            let waiters = state.channels[job.conversationID]?.takeWaiters() ?? []
            state.removeIfUnused(job.conversationID)
            return (waiters, state.isShuttingDown ? Wake.ended : .frames)
        }
        relay?.publish(RelayedEvent(conversationID: job.conversationID, id: id, kind: .done, fields: Array(fields)))
        for waiter in waiters { waiter.resume(returning: wake) }
    }

    // MARK: Other instances' replies

    /// Adds an event of a reply another instance runs to its conversation's log, as that instance's own log holds it,
    /// and wakes the conversation's streams. An event of a reply this log never saw begin, or after events it missed,
    /// makes the log gapped: its `token` events keep their text alone, and the streams waiting there start again
    /// (their clients reconnect and get the saved text first). Events of a reply running here, or of one older than
    /// the log's, are dropped.
    func receive(_ event: RelayedEvent) {
        let (waiters, wake) = state.withLock { state -> ([CheckedContinuation<Wake, Never>], Wake) in
            var channel = state.channels[event.conversationID] ?? EventChannel()
            guard channel.running == nil, !channel.isReserved else { return ([], .frames) }
            let messageID = event.id.messageID
            var wake = Wake.frames
            if channel.messageID != messageID {
                guard messageID > channel.messageID ?? 0 else { return ([], .frames) }
                channel.messageID = messageID
                channel.log = EventLog()
                channel.runsElsewhere = true
                channel.isGapped = event.id.sequence != 1
                if channel.isGapped { wake = .restart }
            } else if !channel.runsElsewhere {
                return ([], .frames)
            } else if !channel.isGapped, event.kind != .done, event.id.sequence != Int64(channel.log.count) + 1 {
                channel.isGapped = true
                wake = .restart
            }
            if event.kind == .done {
                channel.log.append(fields: event.fields, kind: .done, id: event.id)
                channel.runsElsewhere = false
            } else if channel.isGapped {
                let fields = event.kind == .token ? StreamEvent.textAlone(of: event.fields) : event.fields
                channel.log.append(fields: fields, kind: event.kind, id: EventID(messageID: messageID, sequence: 0))
            } else {
                channel.log.append(fields: event.fields, kind: event.kind, id: event.id)
            }
            let waiters = channel.takeWaiters()
            state.channels[event.conversationID] = channel
            state.removeIfUnused(event.conversationID)
            return (waiters, wake)
        }
        for waiter in waiters { waiter.resume(returning: wake) }
    }

    /// Whether a conversation's reply runs on another instance, as far as this one has heard.
    func runsElsewhere(_ conversationID: ConversationID) -> Bool {
        state.withLock { $0.channels[conversationID]?.runsElsewhere == true }
    }

    /// Forgets what was heard of other instances' replies, since events may have been lost: their logs are dropped,
    /// or marked gapped where streams follow them, and those streams start again (an ended reply then sends its
    /// stored ending; a running one is heard of again with its next event).
    func missedEvents() {
        let waiters = state.withLock { state in
            var waiters: [CheckedContinuation<Wake, Never>] = []
            for key in Array(state.channels.keys) where state.channels[key]?.runsElsewhere == true {
                if state.channels[key]?.subscriberCount == 0 {
                    state.channels[key]?.runsElsewhere = false
                    state.removeIfUnused(key)
                } else {
                    state.channels[key]?.isGapped = true
                    waiters += state.channels[key]?.takeWaiters() ?? []
                }
            }
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: .restart) }
    }

    // MARK: Titles

    /// Records a title request about to run in a conversation, which a new send there ends through `interrupt`;
    /// returns its id, or nil (recording nothing) when a reply runs or is reserved there, or the server is shutting
    /// down.
    func beginTitle(in conversationID: ConversationID, interrupt: AsyncStream<Never>.Continuation) -> Int? {
        state.withLock { state in
            var channel = state.channels[conversationID] ?? EventChannel()
            guard !state.isShuttingDown, channel.running == nil, !channel.isReserved else { return nil }
            state.nextID += 1
            channel.title = (state.nextID, interrupt)
            state.channels[conversationID] = channel
            return state.nextID
        }
    }

    /// Forgets title request `id` of a conversation, which has ended (unless a send took it already).
    func endTitle(_ id: Int, in conversationID: ConversationID) {
        state.withLock { state in
            guard state.channels[conversationID]?.title?.id == id else { return }
            state.channels[conversationID]?.title = nil
            state.removeIfUnused(conversationID)
        }
    }

    // MARK: Streams

    /// Opens an event stream of a conversation: its id, the conversation's current reply, how many events its log
    /// holds, whether that reply runs (here or elsewhere), whether its log misses events, and how many titles were
    /// announced before it.
    func openStream(in conversationID: ConversationID)
        -> (id: Int, messageID: MessageID?, logCount: Int, isRunning: Bool, isGapped: Bool, titleCount: Int)
    {
        state.withLock { state in
            state.nextID += 1
            var channel = state.channels[conversationID] ?? EventChannel()
            channel.subscriberCount += 1
            state.channels[conversationID] = channel
            return (
                state.nextID, channel.messageID, channel.log.count, channel.isRunning, channel.isGapped,
                channel.titleCount
            )
        }
    }

    /// Announces a conversation's new title to its open streams (nothing when none is open).
    func announceTitle(_ frame: String, in conversationID: ConversationID) {
        let waiters = state.withLock { state -> [CheckedContinuation<Wake, Never>] in
            guard var channel = state.channels[conversationID], channel.subscriberCount > 0 else { return [] }
            channel.announcedTitle = (channel.titleCount + 1, frame)
            let waiters = channel.takeWaiters()
            state.channels[conversationID] = channel
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: .frames) }
    }

    /// The events of a conversation's log that a stream at `position` has not read, with the reply they belong to,
    /// that reply when it runs here, and whether it has ended (its `done` is the log's last event), moving `position`
    /// past them (to the log's start when the reply changed); nil when there are none, or when the reply changed to
    /// one whose log is gapped (the stream must start again).
    func unreadEvents(in conversationID: ConversationID, at position: inout StreamPosition)
        -> (events: LoggedEvents, current: MessageID, running: ReplyRun?, ended: Bool)?
    {
        state.withLock { state in
            guard let channel = state.channels[conversationID], let current = channel.messageID else { return nil }
            if current != position.messageID {
                // A stream comes to a gapped log only through `subscribe`, which starts it with the saved text.
                guard !channel.isGapped else { return nil }
                position = StreamPosition(messageID: current, index: 0, titles: position.titles)
            }
            guard position.index < channel.log.count else { return nil }
            defer { position.index = channel.log.count }
            return (channel.log.events(from: position.index), current, channel.running, !channel.isRunning)
        }
    }

    /// The latest title frame when a stream at `position` has not sent it, moving `position` past it.
    func unreadTitle(in conversationID: ConversationID, at position: inout StreamPosition) -> String? {
        state.withLock { state in
            guard let announced = state.channels[conversationID]?.announcedTitle, announced.count > position.titles
            else { return nil }
            position.titles = announced.count
            return announced.frame
        }
    }

    /// Waits until stream `id` at `position` has something to do: new events, a heartbeat, its end, or starting again
    /// (at once when it has unread events, was ended, its conversation is idle during a shutdown, or its reply changed
    /// to one whose log is gapped; also when its task is cancelled).
    func waitForWake(stream id: Int, in conversationID: ConversationID, at position: StreamPosition) async -> Wake {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let immediate: Wake? = state.withLock { state in
                    guard !Task.isCancelled, !state.endedStreams.contains(id),
                        let channel = state.channels[conversationID]
                    else { return .ended }
                    if channel.messageID != position.messageID { return channel.isGapped ? .restart : .frames }
                    if position.index < channel.log.count || channel.titleCount > position.titles { return .frames }
                    if state.isShuttingDown, channel.running == nil { return .ended }
                    state.channels[conversationID]?.waiters[id] = continuation
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.channels[conversationID]?.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: .ended)
        }
    }

    /// Ends a stream from outside: its waiting (or next) wait returns `.ended`.
    func endStream(_ id: Int, in conversationID: ConversationID) {
        let waiter = state.withLock { state in
            state.endedStreams.insert(id)
            return state.channels[conversationID]?.waiters.removeValue(forKey: id)
        }
        waiter?.resume(returning: .ended)
    }

    /// Unregisters a stream.
    func closeStream(_ id: Int, in conversationID: ConversationID) {
        state.withLock { state in
            state.endedStreams.remove(id)
            state.channels[conversationID]?.waiters[id] = nil
            state.channels[conversationID]?.subscriberCount -= 1
            state.removeIfUnused(conversationID)
        }
    }

    /// Wakes every waiting stream with `wake`.
    func wakeAll(_ wake: Wake) {
        let waiters = state.withLock { state in
            var waiters: [CheckedContinuation<Wake, Never>] = []
            for key in Array(state.channels.keys) {
                waiters += state.channels[key]?.takeWaiters() ?? []
            }
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: wake) }
    }

    /// Stops accepting replies and titles, and ends the waiting streams of conversations where no reply runs; the
    /// streams of running replies stay open until their `done`.
    func shutDown() {
        let idleWaiters = state.withLock { state in
            state.isShuttingDown = true
            var waiters: [CheckedContinuation<Wake, Never>] = []
            for key in Array(state.channels.keys) where state.channels[key]?.running == nil {
                waiters += state.channels[key]?.takeWaiters() ?? []
            }
            return waiters
        }
        for waiter in idleWaiters { waiter.resume(returning: .ended) }
    }
}

/// Where an event stream is: the reply whose log it reads, how many of that log's events it has read, and how many of
/// the conversation's announced titles it has seen.
struct StreamPosition: Sendable, Equatable {
    var messageID: MessageID?
    var index: Int
    var titles = 0
}
