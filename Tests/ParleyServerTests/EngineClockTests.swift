import Foundation
import Logging
import ParleyCore
import ParleyStore
import Synchronization
import Testing

/// The generation engine on a test clock: heartbeats and token coalescing happen when the clock is advanced, never by
/// waiting for real time. The replies are real ones, stored in a real SQLite file, from a provider the test feeds.
@Suite("Engine clock")
struct EngineClockTests {
    /// A provider whose reply the test hands over a piece at a time (the reply ends with the feed); it counts the
    /// pieces the engine has taken.
    final class FedProvider: ChatProvider {
        let pieces: AsyncStream<String>
        let feed: AsyncStream<String>.Continuation
        private let taken = Atomic<Int>(0)

        init() {
            (pieces, feed) = AsyncStream.makeStream(of: String.self)
        }

        /// How many pieces the engine has received.
        var takenCount: Int { taken.load(ordering: .acquiring) }

        func streamCompletion(
            _ request: CompletionRequest, onSent: @escaping @Sendable () -> Void,
            onChunk: @escaping @Sendable (CompletionChunk) -> Duration
        ) async throws(ProviderError) {
            onSent()
            for await piece in pieces {
                _ = onChunk(.text(piece))
                taken.add(1, ordering: .releasing)
            }
            // A cancelled request fails, as a real provider's does; the feed's end is the reply's.
            if Task.isCancelled { throw .cancelled }
        }
    }

    /// A provider that refuses as overloaded the first `failures` times it is asked, then answers "ok".
    final class OverloadedProvider: ChatProvider {
        let failures: Int
        private let asked = Atomic<Int>(0)

        init(failures: Int) {
            self.failures = failures
        }

        /// How many times it has been asked.
        var askedCount: Int { asked.load(ordering: .acquiring) }

        func streamCompletion(
            _ request: CompletionRequest, onSent: @escaping @Sendable () -> Void,
            onChunk: @escaping @Sendable (CompletionChunk) -> Duration
        ) async throws(ProviderError) {
            let attempt = asked.add(1, ordering: .acquiringAndReleasing).newValue
            guard attempt > failures else { throw .overloaded(status: 503) }
            onSent()
            _ = onChunk(.text("ok"))
        }
    }

    /// An engine on `clock` over a fresh SQLite file, with `provider` as the only model's, and a user's conversation.
    static func engine(clock: TestClock, provider: any ChatProvider, settings: GenerationSettings) async throws
        -> (GenerationManager, ChatService, UserID, ConversationID)
    {
        let database = try ParleyDatabase(directory: try makeTempDirectory())
        let store = SQLiteChatStore(database: database)
        let catalog = ModelCatalog(
            models: [ModelInfo(id: "fed", providerID: "fed")], providers: ["fed": provider],
            isDemoOnly: false)
        var settings = settings
        settings.clock = EngineClock(clock)
        settings.modelTitles = false
        let logger = Logger(label: "engine")
        let manager = GenerationManager(store: store, catalog: catalog, settings: settings, logger: logger)
        let chat = ChatService(store: store, generations: manager, catalog: catalog, logger: logger)
        let user = try await SQLiteAccountStore(database: database).createUser(
            email: "clock@example.com",
            passwordHash: "-", isAdmin: false)
        let conversation = try await chat.createConversation(
            userID: user.id, title: "Clock", model: "fed",
            systemPrompt: nil)
        return (manager, chat, user.id, conversation.id)
    }

    /// An engine as `engine` makes it, running, with a stream open on its conversation and `content` sent there.
    static func sent(_ content: String, clock: TestClock, provider: any ChatProvider, settings: GenerationSettings)
        async throws -> (manager: GenerationManager, running: Task<Void, Never>, stream: EventSubscription)
    {
        let (manager, chat, userID, conversationID) = try await engine(
            clock: clock, provider: provider,
            settings: settings)
        let running = Task { await manager.run() }
        let stream = await manager.subscribe(conversationID: conversationID, userID: userID, lastEventID: nil)
        _ = try await chat.send(
            userID: userID, conversationID: conversationID, content: content, model: nil,
            requestID: nil, receivedAt: .now)
        return (manager, running, stream)
    }

    /// Waits, a moment at a time, until `condition` holds: for work on other threads that has no event of its own.
    static func until(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            try #require(ContinuousClock.now < deadline, "the condition never held")
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// The next frames of a stream as text.
    static func nextFrames(_ stream: inout EventSubscription) async -> String {
        guard case .frames(let bytes, _) = await stream.next() else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("a reply's first piece goes out at once; the pieces after it wait for the clock, then go as one event")
    func coalescingGoesByTheClock() async throws {
        let clock = TestClock(), provider = FedProvider()
        let (manager, running, opened) = try await Self.sent(
            "Count", clock: clock, provider: provider,
            settings: GenerationSettings())
        var stream = opened
        #expect(await Self.nextFrames(&stream).contains("event:start"))
        provider.feed.yield("one ")
        #expect(await Self.nextFrames(&stream).contains(#""text":"one ""#))
        provider.feed.yield("two ")
        provider.feed.yield("three")
        try await Self.until { provider.takenCount == 3 }
        // Both pieces are held until a coalescing interval has passed on the engine's clock.
        clock.advance(by: .milliseconds(30))
        let coalesced = await Self.nextFrames(&stream)
        #expect(coalesced.contains(#""text":"two three""#), "\(coalesced)")
        provider.feed.finish()
        var rest = ""
        while !rest.contains("event:done") { rest += await Self.nextFrames(&stream) }
        #expect(rest.contains(#""status":"complete""#))
        stream.close()
        manager.shutdown()
        await running.value
    }

    @Test("an idle stream gets a heartbeat once the heartbeat interval has passed on the engine's clock")
    func heartbeatsGoByTheClock() async throws {
        let clock = TestClock(), provider = FedProvider()
        let (manager, _, userID, conversationID) = try await Self.engine(
            clock: clock, provider: provider, settings: GenerationSettings(heartbeatInterval: .seconds(5)))
        let running = Task { await manager.run() }
        var stream = await manager.subscribe(conversationID: conversationID, userID: userID, lastEventID: nil)
        let heard = Task {
            let batch = await stream.next()
            stream.close()
            return batch
        }
        // The three timers sleep on the clock first, so that the advance reaches the heartbeat's.
        try await Self.until { clock.sleeperCount >= 3 }
        // The stream waits once its task has run; until then a heartbeat would find no one to wake, so the clock is
        // moved on a heartbeat interval at a time until the stream has heard one.
        let deadline = ContinuousClock.now + .seconds(10)
        while manager.subscriberCount > 0, ContinuousClock.now < deadline {
            clock.advance(by: .seconds(5))
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(await heard.value == .heartbeat)
        manager.shutdown()
        await running.value
    }

    @Test("a provider's outage is asked again only once the backoff has passed on the engine's clock")
    func retriesWaitForTheClock() async throws {
        let clock = TestClock(), provider = OverloadedProvider(failures: 2)
        let settings = GenerationSettings(retry: RetryPolicy(maxRetries: 3))
        let (manager, running, opened) = try await Self.sent(
            "Again", clock: clock, provider: provider,
            settings: settings)
        var stream = opened
        // The three timers and the reply's backoff sleep on the clock; nothing is asked again until it moves.
        try await Self.until { clock.sleeperCount >= 4 }
        #expect(provider.askedCount == 1)
        clock.advance(by: .milliseconds(250))  // the first backoff is at most 250 ms
        try await Self.until { provider.askedCount == 2 && clock.sleeperCount >= 4 }
        clock.advance(by: .milliseconds(500))  // the second at most 500 ms
        var frames = ""
        while !frames.contains("event:done") { frames += await Self.nextFrames(&stream) }
        #expect(provider.askedCount == 3)
        #expect(frames.contains(#""text":"ok""#) && frames.contains(#""status":"complete""#), "\(frames)")
        stream.close()
        manager.shutdown()
        await running.value
    }

    @Test("at shutdown a running reply gets the grace period on the engine's clock, then ends interrupted")
    func shutdownGraceGoesByTheClock() async throws {
        let clock = TestClock(), provider = FedProvider()
        let (manager, running, opened) = try await Self.sent(
            "Wait", clock: clock, provider: provider,
            settings: GenerationSettings(shutdownGrace: .seconds(10)))
        var stream = opened
        provider.feed.yield("half")
        var frames = ""
        while !frames.contains(#""text":"half""#) { frames += await Self.nextFrames(&stream) }
        manager.shutdown()
        // The grace period's wait sleeps on the clock beside the three timers; the reply runs on until it passes.
        try await Self.until { clock.sleeperCount >= 4 }
        clock.advance(by: .seconds(9))
        #expect(manager.runningCount == 1)
        clock.advance(by: .seconds(1))
        while !frames.contains("event:done") { frames += await Self.nextFrames(&stream) }
        #expect(frames.contains(#""status":"interrupted""#), "\(frames)")
        await running.value
        #expect(manager.runningCount == 0)
        provider.feed.finish()
        stream.close()
    }
}
