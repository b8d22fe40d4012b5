import Logging
import Synchronization

/// Owns every running reply: at most one per conversation, independent of any HTTP connection.
/// It streams from providers, fans events out to subscribers, saves partial text once a second, and
/// ends each reply with exactly one `done`.
public final class GenerationManager: Sendable {
    /// The conversations' channels, logs, streams and running replies.
    let hub: ConversationHub
    /// The replies' tasks, which a shutdown waits for.
    let replyTasks = ReplyTasks()
    let store: any ChatStore
    /// Where replies find their documents' passages; without it, replies draw on no document.
    let documents: (any DocumentStore)?
    /// The tools replies may call; without it, no model is offered a tool.
    let tools: (any ToolRunner)?
    let catalog: ModelCatalog
    let settings: GenerationSettings
    let logger: Logger
    let progress: ProgressSaver
    /// The clock the engine goes by (`GenerationSettings.clock`).
    let clock: EngineClock
    /// API completions streaming now, which widen the coalescing interval as replies do.
    let runningCompletions = Atomic<Int>(0)
    /// Finished by `shutdown()`: `run()` waits on it.
    private let shutdownSignal: AsyncStream<Never>
    private let shutdownInput: AsyncStream<Never>.Continuation

    /// Creates a manager, sharing its replies with other instances through `relay` when given; nothing runs until
    /// `run()`.
    public init(
        store: any ChatStore, documents: (any DocumentStore)? = nil, tools: (any ToolRunner)? = nil,
        relay: (any ReplyRelay)? = nil, catalog: ModelCatalog, settings: GenerationSettings = GenerationSettings(),
        logger: Logger
    ) {
        hub = ConversationHub(relay: relay)
        self.store = store
        self.documents = documents
        self.tools = tools
        self.catalog = catalog
        self.settings = settings
        self.logger = logger
        clock = settings.clock
        progress = ProgressSaver(store: store, logger: logger)
        (shutdownSignal, shutdownInput) = AsyncStream.makeStream(of: Never.self)
    }

    /// Runs the timers (coalescing, saving, heartbeats) until `shutdown()` or cancellation; replies run in tasks of
    /// their own, started by `start`. After `shutdown()`, the running replies get the grace period to finish; those
    /// still running then end as `interrupted`, and `run()` returns once every reply's task has ended.
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask {
                await self.every({ self.settings.coalesceTick(running: self.runningCount) }) { self.emitDueTokens() }
            }
            group.addTask {
                await self.every({ self.settings.flushInterval }) { await self.saveProgress() }
            }
            group.addTask { await self.every({ self.settings.heartbeatInterval }) { self.hub.wakeAll(.heartbeat) } }
            if let relay = hub.relay {
                group.addTask { await relay.run { self.receive($0) } }
            }
            for await _ in shutdownSignal {}
            shutdown()
            await waitForRunningReplies(upTo: settings.shutdownGrace)
            let running = hub.runningReplies
            if !running.isEmpty {
                logger.notice(
                    "interrupting replies still running after the grace period", metadata: ["count": "\(running.count)"]
                )
            }
            for reply in running { reply.stop(.shutdown) }
            // The stopped replies save what they have and end; a title still being improved is given up. Each reply
            // removes its task when it ends; one still starting on its sender's thread is looked at again shortly.
            while let tasks = replyTasks.remaining {
                for task in tasks {
                    task?.cancel()
                    await task?.value
                }
                if tasks.contains(where: { $0 == nil }) { try? await Task.sleep(for: .milliseconds(1)) }
            }
            group.cancelAll()
        }
        await saveProgress()
    }

    /// Starts the task that runs a reply, kept in `replyTasks` until it ends, unless the server is shutting down;
    /// returns whether it started. Each reply is one task of its own, which Stop cancels and whose frames are the only
    /// ones held while it streams; it runs at once on the caller's thread (`Task.immediate`) until its request has
    /// left, so that the request does not queue for a thread first.
    private func startTask(for reply: ReplyRun) -> Bool {
        let id = reply.job.assistantMessageID
        guard replyTasks.enter(id) else { return false }
        let task = Task.immediate {
            await self.run(reply)
            self.replyTasks.remove(id)
        }
        replyTasks.record(task, of: id)
        reply.attach(task)
        return true
    }

    /// Waits until no reply runs, for at most `grace` (less when cancelled).
    private func waitForRunningReplies(upTo grace: Duration) async {
        let deadline = clock.now + grace
        while runningCount > 0, clock.now < deadline {
            do { try await clock.sleep(for: .milliseconds(20)) } catch { return }
        }
    }

    /// Runs work that must finish even while the caller is being cancelled (saving what a shutdown interrupts).
    func uncancelled<T: Sendable>(_ work: @escaping @Sendable () async -> T) async -> T {
        await Task { await work() }.value
    }

    /// Stops accepting replies and ends the event streams of conversations where none runs; `run()` then gives the
    /// running replies the grace period. Streams of running replies stay open until their `done`.
    public func shutdown() {
        hub.shutDown()
        replyTasks.close()
        shutdownInput.finish()
    }

    /// Reserves the conversation, writes the reply's messages with `prepare`, and starts the reply; returns once the
    /// reply's request has been handed to the provider's client (or the reply ended without one, or an image model was
    /// asked to draw), so that the caller's response does not delay it. `receivedAt` is when the request
    /// asking for the reply reached Parley, from which Parley's part of the first token is timed.
    /// Throws `GenerationError.busy` when a reply already runs there, `.atCapacity` when the server runs as many as it
    /// may (before `prepare`, so nothing is written), or whatever `prepare` throws.
    public func start(
        conversationID: ConversationID, receivedAt: ContinuousClock.Instant,
        prepare: () async throws -> GenerationJob
    ) async throws -> GenerationJob {
        let titleRequest = try hub.reserve(conversationID, limit: settings.maxRunningReplies)
        // The user's new message goes first: a title still being asked for gives way (a one-slot server would make
        // the reply wait for it).
        titleRequest?.finish()
        let job: GenerationJob
        do {
            job = try await prepare()
        } catch {
            hub.cancelReservation(conversationID)
            throw error
        }
        let reply = ReplyRun(job: job, receivedAt: receivedAt, clock: clock)
        if launch(reply) {
            await reply.waitUntilUnderway()
        } else {
            // The server began shutting down while `prepare` wrote the messages: the reply ends before it began.
            reply.stop(.shutdown)
            await finish(reply, end: .cancelled)
        }
        return job
    }

    /// Stops the reply running in a conversation, here or (through the relay) on the instance that runs it; returns
    /// whether one was running as far as this instance knows.
    @discardableResult
    public func stop(conversationID: ConversationID) -> Bool {
        guard let reply = hub.runningReply(in: conversationID) else {
            hub.relay?.requestStop(conversationID)
            return hub.runsElsewhere(conversationID)
        }
        reply.stop(.user)
        return true
    }

    /// Acts on what another instance sent: an event of its reply goes to the conversation's log, a Stop or a tool
    /// call's answer to the reply running here, a title to the conversation's streams.
    private func receive(_ message: RelayMessage) {
        switch message {
        case .event(let event): hub.receive(event)
        case .stop(let conversationID): hub.runningReply(in: conversationID)?.stop(.user)
        case .decision(let conversationID, let callID, let allow):
            _ = hub.runningReply(in: conversationID)?.decide(callID, allow: allow)
        case .title(let conversationID, let frame): hub.announceTitle(frame, in: conversationID)
        case .mayHaveMissed: hub.missedEvents()
        }
    }

    /// The assistant message of the reply running in a conversation, if one runs.
    public func runningReply(conversationID: ConversationID) -> MessageID? {
        hub.runningReply(in: conversationID)?.job.assistantMessageID
    }

    /// How many replies are being generated.
    public var runningCount: Int { hub.runningReplyCount }

    /// How many upstream streams run: replies and API completions, which share the coalescing interval's load.
    var streamingCount: Int { hub.runningReplyCount + runningCompletions.load(ordering: .relaxed) }

    /// How many event streams are open.
    public var subscriberCount: Int { hub.streamCount }

    /// Registers the reply as running and starts its task; returns false when the server is shutting down, in which
    /// case it does not start.
    private func launch(_ reply: ReplyRun) -> Bool {
        hub.launch(reply)
        reply.publish(.start(messageID: reply.job.assistantMessageID, model: reply.job.model.id), to: hub)
        return startTask(for: reply)
    }

    /// Runs `work` after each `interval()` until cancelled.
    private func every(_ interval: () -> Duration, _ work: () async -> Void) async {
        while !Task.isCancelled {
            do { try await clock.sleep(for: interval()) } catch { return }
            await work()
        }
    }

    /// Saves the partial text of every running reply, even while the caller is being cancelled (by a shutdown).
    func saveProgress() async {
        let replies = hub.runningReplies
        await uncancelled { [progress] in await progress.save(replies) }
    }
}
