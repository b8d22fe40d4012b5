import Logging
import Synchronization

/// Owns every running reply: at most one per conversation, independent of any HTTP connection.
/// It streams from providers, fans events out to subscribers, saves partial text once a second, and
/// ends each reply with exactly one `done`.
public final class GenerationManager: Sendable {
    /// Everything shared between replies, subscribers and the timers, guarded by one lock.
    struct State {
        var channels: [ConversationID: EventChannel] = [:]
        var running: [MessageID: Generation] = [:]
        var nextSubscriberID = 0
        var endedSubscribers: Set<Int> = []
        var isShuttingDown = false
        /// Conversations reserved by `start` whose reply has not been launched yet (they count toward the limit).
        var reservations = 0
        /// The task of every reply that has not ended, by its assistant message (`run()` awaits them at shutdown); nil
        /// while the task is starting, before its handle is known.
        var replyTasks: [MessageID: Task<Void, Never>?] = [:]
        /// The title requests running, by conversation: finishing one ends its request (a new reply there starts).
        var titleRequests: [ConversationID: AsyncStream<Never>.Continuation] = [:]
    }

    let state = Mutex(State())
    /// How many replies run now (read on every `token` event, so kept out of `state`'s lock).
    let runningReplies = Atomic<Int>(0)
    let store: any ChatStore
    let catalog: ModelCatalog
    let settings: GenerationSettings
    let logger: Logger
    let clock = ContinuousClock()
    /// Finished by `shutdown()`: `run()` waits on it.
    private let shutdownSignal: AsyncStream<Never>
    private let shutdownInput: AsyncStream<Never>.Continuation

    /// Creates a manager; nothing runs until `run()`.
    public init(store: any ChatStore, catalog: ModelCatalog, settings: GenerationSettings = GenerationSettings(), logger: Logger) {
        self.store = store
        self.catalog = catalog
        self.settings = settings
        self.logger = logger
        (shutdownSignal, shutdownInput) = AsyncStream.makeStream(of: Never.self)
    }

    /// Runs the timers (coalescing, saving, heartbeats) until `shutdown()` or cancellation; replies run in tasks of their
    /// own, started by `start`. After `shutdown()`, the running replies get the grace period to finish; those still
    /// running then end as `interrupted`, and `run()` returns once every reply's task has ended.
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask {
                await self.every({ self.settings.coalesceTick(running: self.runningCount) }) { self.emitDueTokens() }
            }
            group.addTask {
                await self.every({ self.settings.flushInterval }) { await self.uncancelled { await self.saveProgress() } }
            }
            group.addTask { await self.every({ self.settings.heartbeatInterval }) { self.wakeAll(.heartbeat) } }
            for await _ in shutdownSignal {}
            shutdown()
            await waitForRunningReplies(upTo: settings.shutdownGrace)
            let running = state.withLock { Array($0.running.values) }
            if !running.isEmpty {
                logger.notice("interrupting replies still running after the grace period", metadata: ["count": "\(running.count)"])
            }
            for generation in running { generation.stop(.shutdown) }
            // The stopped replies save what they have and end; a title still being improved is given up. Each reply
            // removes its task when it ends; one still starting on its sender's thread is looked at again shortly.
            while let tasks = state.withLock({ $0.replyTasks.isEmpty ? nil : Array($0.replyTasks.values) }) {
                for task in tasks {
                    task?.cancel()
                    await task?.value
                }
                if tasks.contains(where: { $0 == nil }) { try? await Task.sleep(for: .milliseconds(1)) }
            }
            group.cancelAll()
        }
        await uncancelled { await self.saveProgress() }
    }

    /// Starts the task that runs a reply, kept in `replyTasks` until it ends, unless the server is shutting down;
    /// returns whether it started. A reply is a task of its own rather than a child of `run()`'s group so that Stop can
    /// cancel it: one task a reply, which holds its async frames for as long as the reply streams (a child task owning
    /// the streaming task cost ~3 KB more a reply). The task runs at once on this thread (`Task.immediate`) until it
    /// first waits, which is once its request has left: queued behind the task pool's other work, or handed to
    /// `run()`'s task to start as it once was, the request waited for a thread one or two more times (milliseconds at
    /// the 99th percentile at 500 streams), and the sender once more to be told.
    private func startTask(for generation: Generation) -> Bool {
        let id = generation.job.assistantMessageID
        // Entered as starting under the lock that `shutdown()` sets its flag under, so that `run()` awaits it.
        let starts = state.withLock { state in
            guard !state.isShuttingDown else { return false }
            state.replyTasks.updateValue(nil, forKey: id)
            return true
        }
        guard starts else { return false }
        let task = Task.immediate {
            await self.run(generation)
            self.state.withLock { _ = $0.replyTasks.removeValue(forKey: id) }
        }
        // A reply that ended already has removed its entry. A Stop that came while the task started cancels it now.
        generation.state.withLock { generationState in
            state.withLock { state in
                if state.replyTasks.keys.contains(id) { state.replyTasks.updateValue(task, forKey: id) }
            }
            guard !generationState.isStreamOver else { return }
            generationState.task = task
            if generationState.stopCause != nil { task.cancel() }
        }
        return true
    }

    /// Waits until no reply runs, for at most `grace` (less when cancelled).
    private func waitForRunningReplies(upTo grace: Duration) async {
        let deadline = clock.now + grace
        while runningCount > 0, clock.now < deadline {
            do { try await Task.sleep(for: .milliseconds(20)) } catch { return }
        }
    }

    /// Runs work that must finish even while the caller is being cancelled (saving what a shutdown interrupts).
    func uncancelled<T: Sendable>(_ work: @escaping @Sendable () async -> T) async -> T {
        await Task { await work() }.value
    }

    /// Stops accepting replies and ends the event streams of conversations where none runs; `run()` then gives the
    /// running replies the grace period. Streams of running replies stay open until their `done`.
    public func shutdown() {
        let idleWaiters = state.withLock { state in
            state.isShuttingDown = true
            var waiters: [CheckedContinuation<Wake, Never>] = []
            for key in Array(state.channels.keys) where state.channels[key]?.running == nil {
                waiters += state.channels[key]?.takeWaiters() ?? []
            }
            shutdownInput.finish()
            return waiters
        }
        for waiter in idleWaiters { waiter.resume(returning: .ended) }
    }

    /// Reserves the conversation, writes the reply's messages with `prepare`, and starts the reply; returns once the
    /// reply's request has been handed to the provider's client (or the reply ended without one, or an image model was
    /// asked to draw), so that the caller's response does not delay it. `receivedAt` is when the request
    /// asking for the reply reached Parley, from which Parley's part of the first token is timed.
    /// Throws `GenerationError.busy` when a reply already runs there, `.atCapacity` when the server runs as many as it
    /// may (before `prepare`, so nothing is written), or whatever `prepare` throws.
    public func start(conversationID: ConversationID, receivedAt: ContinuousClock.Instant,
                      prepare: () async throws -> GenerationJob) async throws -> GenerationJob {
        let titleRequest = try state.withLock { state throws(GenerationError) in
            guard !state.isShuttingDown else { throw .shuttingDown }
            var channel = state.channels[conversationID] ?? EventChannel()
            guard channel.running == nil, !channel.isReserved else { throw .busy }
            if let limit = settings.maxRunningReplies, state.running.count + state.reservations >= limit { throw .atCapacity }
            channel.isReserved = true
            state.reservations += 1
            state.channels[conversationID] = channel
            return state.titleRequests.removeValue(forKey: conversationID)
        }
        // The user's new message goes first: a title still being asked for gives way (a one-slot server would make
        // the reply wait for it).
        titleRequest?.finish()
        let job: GenerationJob
        do {
            job = try await prepare()
        } catch {
            state.withLock { state in
                state.channels[conversationID]?.isReserved = false
                state.reservations -= 1
                removeIfUnused(conversationID, in: &state)
            }
            throw error
        }
        let generation = Generation(job: job, receivedAt: receivedAt)
        if launch(generation) {
            await generation.waitUntilUnderway()
        } else {
            // The server began shutting down while `prepare` wrote the messages: the reply ends before it began.
            generation.stop(.shutdown)
            await finish(generation, end: .cancelled)
        }
        return job
    }

    /// Stops the reply running in a conversation; returns whether one was running.
    @discardableResult
    public func stop(conversationID: ConversationID) -> Bool {
        guard let generation = state.withLock({ $0.channels[conversationID]?.running }) else { return false }
        generation.stop(.user)
        return true
    }

    /// How many replies are being generated.
    public var runningCount: Int { runningReplies.load(ordering: .relaxed) }

    /// How many event streams are open.
    public var subscriberCount: Int { state.withLock { $0.channels.values.reduce(0) { $0 + $1.subscriberCount } } }

    /// Registers the reply as running and starts its task; returns false when the server is shutting down, in which
    /// case it does not start.
    private func launch(_ generation: Generation) -> Bool {
        let job = generation.job
        let waiters = state.withLock { state in
            var channel = state.channels[job.conversationID] ?? EventChannel()
            channel.isReserved = false
            state.reservations -= 1
            channel.running = generation
            channel.messageID = job.assistantMessageID
            channel.log = EventLog()
            state.running[job.assistantMessageID] = generation
            runningReplies.add(1, ordering: .relaxed)
            state.channels[job.conversationID] = channel
            return state.channels[job.conversationID]?.takeWaiters() ?? []
        }
        for waiter in waiters { waiter.resume(returning: .frames) }
        publish(.start(messageID: job.assistantMessageID, model: job.model.id), of: generation)
        return startTask(for: generation)
    }

    /// Appends an event of a reply to the conversation's log with the reply's next id.
    func publish(_ event: StreamEvent, of generation: Generation) {
        generation.state.withLock { generationState in
            append(event, id: generation.nextEventID(&generationState), conversationID: generation.job.conversationID)
        }
    }

    /// Appends an event to a conversation's log and wakes its waiters; callers hold the reply's lock so events keep their order.
    func append(_ event: StreamEvent, id: EventID, conversationID: ConversationID) {
        let waiters = state.withLock { state in
            state.channels[conversationID]?.log.append(event, id: id)
            return state.channels[conversationID]?.takeWaiters() ?? []
        }
        for waiter in waiters { waiter.resume(returning: .frames) }
    }

    /// Drops a conversation's channel when no reply or stream needs it.
    func removeIfUnused(_ conversationID: ConversationID, in state: inout State) {
        if state.channels[conversationID]?.isUnused == true {
            state.channels[conversationID] = nil
        }
    }

    private func wakeAll(_ wake: Wake) {
        let waiters = state.withLock { state in
            var waiters: [CheckedContinuation<Wake, Never>] = []
            for key in Array(state.channels.keys) {
                waiters += state.channels[key]?.takeWaiters() ?? []
            }
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: wake) }
    }

    /// Runs `work` after each `interval()` until cancelled.
    private func every(_ interval: () -> Duration, _ work: () async -> Void) async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval()) } catch { return }
            await work()
        }
    }

    /// Saves the partial text of every running reply in one transaction.
    func saveProgress() async {
        let generations = state.withLock { Array($0.running.values) }
        var contents: [MessageID: String] = [:]
        var saving: [Generation] = []
        for generation in generations {
            if let text = generation.takeUnsavedText() {
                contents[generation.job.assistantMessageID] = text
                saving.append(generation)
            }
        }
        guard !contents.isEmpty else { return }
        do {
            let started = clock.now
            try await store.saveProgress(contents)
            GenerationMetrics.flush(after: started.duration(to: clock.now))
        } catch {
            logger.error("saving partial replies failed", metadata: ["error": "\(error)"])
            for generation in saving { generation.markUnsaved() }
        }
    }
}
