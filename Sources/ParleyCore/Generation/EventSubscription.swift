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
    let manager: GenerationManager
    let conversationID: ConversationID
    let id: Int
    var messageID: MessageID?
    var index: Int
    var prefix: String
    /// The reply whose stored `done` is the prefix, when there is one.
    var prefixFinishes: MessageID?
    /// The running reply of the frames `next()` returned last, and the sequence of their last event, until `wrote()`.
    var lastTaken: (generation: Generation, sequence: Int64)?

    /// Waits for the next frames (or a heartbeat); never blocks the reply or other streams.
    public mutating func next() async -> EventBatch {
        if !prefix.isEmpty {
            defer { prefix = "" }
            return .frames(Array(prefix.utf8), finishing: prefixFinishes)
        }
        while true {
            if let batch = takeFrames() { return batch }
            switch await waitForWake() {
            case .frames: continue
            case .heartbeat: return .heartbeat
            case .ended: return takeFrames() ?? .ended
            }
        }
    }

    /// Tells the subscription that the frames `next()` returned have been written to its client: the first stream to
    /// write a reply's first text records Parley's part of that first token (`parley_added_first_token_seconds`).
    public mutating func wrote() {
        guard let (generation, sequence) = lastTaken else { return }
        lastTaken = nil
        if let added = generation.addedFirstTokenTime(wroteUpTo: sequence) {
            GenerationMetrics.addedToFirstToken(model: generation.job.model.id, added)
        }
    }

    /// Ends the stream from outside (the server is about to stop): a waiting `next()` returns `.ended` at once.
    public func end() {
        let waiter = manager.state.withLock { state in
            state.endedSubscribers.insert(id)
            return state.channels[conversationID]?.waiters.removeValue(forKey: id)
        }
        waiter?.resume(returning: .ended)
    }

    /// Unregisters the stream.
    public func close() {
        manager.state.withLock { state in
            state.endedSubscribers.remove(id)
            state.channels[conversationID]?.waiters[id] = nil
            state.channels[conversationID]?.subscriberCount -= 1
            manager.removeIfUnused(conversationID, in: &state)
        }
    }

    /// The frames of the log not sent yet, joined (a log whose reply no longer runs ends with its `done`); nil when
    /// there are none.
    private mutating func takeFrames() -> EventBatch? {
        let taken = manager.state.withLock { state -> (LoggedEvents, current: MessageID, running: Generation?)? in
            guard let channel = state.channels[conversationID], let current = channel.messageID else { return nil }
            if current != messageID {
                messageID = current
                index = 0
            }
            guard index < channel.log.count else { return nil }
            defer { index = channel.log.count }
            return (channel.log.events(from: index), current, channel.running)
        }
        guard let (events, current, running) = taken else { return nil }
        lastTaken = running.flatMap { generation in events.entries.last.map { (generation, Int64($0.sequence)) } }
        // The frames are built here, outside the lock every reply and stream shares.
        return .frames(events.frames(), finishing: running == nil ? current : nil)
    }

    private func waitForWake() async -> Wake {
        let (manager, conversationID, id, messageID, index) = (self.manager, self.conversationID, self.id, self.messageID, self.index)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let immediate: Wake? = manager.state.withLock { state in
                    guard !Task.isCancelled, !state.endedSubscribers.contains(id),
                          let channel = state.channels[conversationID] else { return .ended }
                    if channel.messageID != messageID || index < channel.log.count { return .frames }
                    if state.isShuttingDown, channel.running == nil { return .ended }
                    state.channels[conversationID]?.waiters[id] = continuation
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = manager.state.withLock { $0.channels[conversationID]?.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: .ended)
        }
    }
}

extension GenerationManager {
    /// Opens an event stream of a conversation, resuming after `lastEventID` when given: the rest of that
    /// reply's events, or its stored `done` when the reply has ended since; with no id, the running reply from its start.
    public func subscribe(conversationID: ConversationID, userID: UserID, lastEventID: EventID?) async -> EventSubscription {
        let (id, current, frameCount, isRunning) = state.withLock { state in
            state.nextSubscriberID += 1
            var channel = state.channels[conversationID] ?? EventChannel()
            channel.subscriberCount += 1
            state.channels[conversationID] = channel
            return (state.nextSubscriberID, channel.messageID, channel.log.count, channel.running != nil)
        }
        var subscription = EventSubscription(manager: self, conversationID: conversationID, id: id,
                                             messageID: current, index: isRunning ? 0 : frameCount, prefix: "", prefixFinishes: nil)
        guard let last = lastEventID else { return subscription }
        if last.messageID == current {
            let seen = last.isDone ? frameCount : Int(last.sequence)
            subscription.index = seen <= frameCount ? seen : 0
        } else if !last.isDone,
                  let message = try? await store.message(id: last.messageID, userID: userID),
                  message.conversationID == conversationID, message.status != .streaming {
            subscription.prefix = StreamEvent.ending(of: message)
            subscription.prefixFinishes = message.id
            subscription.index = 0
        } else {
            subscription.index = 0
        }
        return subscription
    }
}
