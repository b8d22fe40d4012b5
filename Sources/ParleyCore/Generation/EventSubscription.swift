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
        let taken = manager.state.withLock { state -> (LoggedEvents, finishing: MessageID?)? in
            guard let channel = state.channels[conversationID], let current = channel.messageID else { return nil }
            if current != messageID {
                messageID = current
                index = 0
            }
            guard index < channel.log.count else { return nil }
            defer { index = channel.log.count }
            return (channel.log.events(from: index), channel.running == nil ? current : nil)
        }
        // The frames are built here, outside the lock every reply and stream shares.
        return taken.map { .frames($0.0.frames(), finishing: $0.finishing) }
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
            subscription.prefix = StreamEvent.done(for: message)
                .frame(id: EventID(messageID: message.id, sequence: EventID.doneSequence))
            subscription.prefixFinishes = message.id
            subscription.index = 0
        } else {
            subscription.index = 0
        }
        return subscription
    }
}
