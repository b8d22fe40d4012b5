/// What an event stream writes next.
public enum EventBatch: Sendable, Equatable {
    /// SSE frames, already encoded as UTF-8, to write in one go; `finishing` is the reply whose `done` they end with,
    /// if they do.
    case frames([UInt8], finishing: MessageID?)
    /// Nothing happened for a while: write `: heartbeat`.
    case heartbeat
    /// The server is shutting down: close the stream.
    case ended
}

/// One open event stream of a conversation: where it is in the log, and what it still has to send.
public struct EventSubscription: Sendable {
    let hub: ConversationHub
    let conversationID: ConversationID
    let id: Int
    var position: StreamPosition
    /// Frames to send before the log's: a stored reply's ending, for a stream that resumes after that reply ended.
    var prefix: String
    /// The reply whose stored `done` is the prefix, when there is one.
    var prefixFinishes: MessageID?
    /// The running reply of the frames `next()` returned last, and the sequence of their last event, until `wrote()`.
    var lastTaken: (reply: ReplyRun, sequence: Int64)?
    /// The reply this stream's frames named last: its later `token` and `reasoning` frames leave `message_id` out.
    var namedReply: MessageID?

    /// Waits for the next frames (or a heartbeat); never blocks the reply or other streams.
    public mutating func next() async -> EventBatch {
        if !prefix.isEmpty {
            defer { prefix = "" }
            return .frames(Array(prefix.utf8), finishing: prefixFinishes)
        }
        while true {
            if let batch = takeFrames() { return batch }
            switch await hub.waitForWake(stream: id, in: conversationID, at: position) {
            case .frames: continue
            case .heartbeat: return .heartbeat
            case .ended: return takeFrames() ?? .ended
            case .restart: return .ended
            }
        }
    }

    /// Tells the subscription that the frames `next()` returned have been written to its client: the first stream to
    /// write a reply's first text records Parley's part of that first token (`parley_added_first_token_seconds`).
    public mutating func wrote() {
        guard let (reply, sequence) = lastTaken else { return }
        lastTaken = nil
        if let added = reply.addedFirstTokenTime(wroteUpTo: sequence) {
            GenerationMetrics.addedToFirstToken(model: reply.job.model.id, added)
        }
    }

    /// Ends the stream from outside (the server is about to stop): a waiting `next()` returns `.ended` at once.
    public func end() {
        hub.endStream(id, in: conversationID)
    }

    /// Unregisters the stream.
    public func close() {
        hub.closeStream(id, in: conversationID)
    }

    /// The frames of the log not sent yet, joined (a log whose reply no longer runs ends with its `done`); nil when
    /// there are none. The frames are built here, outside the hub's lock, which every reply and stream shares.
    private mutating func takeFrames() -> EventBatch? {
        let title = hub.unreadTitle(in: conversationID, at: &position).map { Array($0.utf8) } ?? []
        guard let (events, current, running, ended) = hub.unreadEvents(in: conversationID, at: &position) else {
            return title.isEmpty ? nil : .frames(title, finishing: nil)
        }
        lastTaken = running.flatMap { reply in events.entries.last.map { (reply, Int64($0.sequence)) } }
        let frames = events.frames(replyNamed: namedReply == current)
        namedReply = current
        return .frames(frames + title, finishing: ended ? current : nil)
    }
}

extension GenerationManager {
    /// Opens an event stream of a conversation, resuming after `lastEventID` when given: the rest of that
    /// reply's events, or its stored `done` when the reply has ended since; with no id, the running reply from its
    /// start. A reply running elsewhere whose beginning this instance missed starts from its saved text.
    public func subscribe(conversationID: ConversationID, userID: UserID, lastEventID: EventID?) async
        -> EventSubscription
    {
        let (id, current, logCount, isRunning, isGapped, titles) = hub.openStream(in: conversationID)
        let position = StreamPosition(messageID: current, index: isRunning ? 0 : logCount, titles: titles)
        var subscription = EventSubscription(
            hub: hub, conversationID: conversationID, id: id, position: position,
            prefix: "", prefixFinishes: nil)
        if isGapped, let current, lastEventID.map({ $0.messageID != current || !$0.isDone }) ?? true,
            let message = try? await store.message(id: current, userID: userID),
            message.conversationID == conversationID
        {
            subscription.namedReply = current
            subscription.position.index = logCount
            if message.status == .streaming {
                subscription.prefix = StreamEvent.snapshot(of: message)
            } else {
                // The reply ended unheard: its log ends now, with the `done` this stream sends from the store.
                subscription.prefix = StreamEvent.ending(of: message)
                subscription.prefixFinishes = message.id
                let done = EventID(messageID: message.id, sequence: EventID.doneSequence)
                hub.receive(RelayedEvent(StreamEvent.done(for: message), id: done, conversationID: conversationID))
                subscription.position.index += 1
            }
            return subscription
        }
        guard let last = lastEventID else { return subscription }
        if last.messageID == current {
            let seen = last.isDone ? logCount : Int(last.sequence)
            subscription.position.index = seen <= logCount ? seen : 0
        } else if !last.isDone,
            let message = try? await store.message(id: last.messageID, userID: userID),
            message.conversationID == conversationID, message.status != .streaming
        {
            subscription.prefix = StreamEvent.ending(of: message)
            subscription.prefixFinishes = message.id
            subscription.position.index = 0
        } else {
            subscription.position.index = 0
        }
        return subscription
    }
}
