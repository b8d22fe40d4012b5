import Foundation
import Logging
import ParleyCore
import ParleyProviders
import ParleyStore
import Synchronization
import TestDatabases
import Testing

/// How a reply starts: the starter gets control back once the reply's request is on its way, and a reply whose
/// messages are written while the server begins to shut down still ends, saved and with its `done`.
@Suite struct GenerationStartTests {
    /// Holds a provider until the test opens it, or for at most 10 s, so that a start that wrongly waits for the
    /// provider still returns (and fails its checks) instead of hanging.
    final class Gate: Sendable {
        private let isOpen = Atomic(false)

        /// Lets the waiting provider go on.
        func open() { isOpen.store(true, ordering: .releasing) }

        /// Returns once the gate is opened (checked every 5 ms), after 10 s at most, or when the task is cancelled.
        func wait() async {
            let deadline = ContinuousClock.now + .seconds(10)
            while !isOpen.load(ordering: .acquiring), ContinuousClock.now < deadline {
                do { try await Task.sleep(for: .milliseconds(5)) } catch { return }
            }
        }
    }

    /// A provider that records whether its request was made, says it was sent 100 ms later, and answers one word once
    /// `answer` is opened.
    final class RecordingProvider: ChatProvider {
        private let progress = Mutex((requested: false, sent: false))
        /// Opened by the test to let the answer come.
        let answer = Gate()
        /// Whether a request was made.
        var wasRequested: Bool { progress.withLock { $0.requested } }
        /// Whether the provider said the request was sent.
        var wasSent: Bool { progress.withLock { $0.sent } }

        func streamCompletion(
            _ request: CompletionRequest, onSent: @escaping @Sendable () -> Void,
            onChunk: @escaping @Sendable (CompletionChunk) -> Duration
        ) async throws(ProviderError) {
            progress.withLock { $0.requested = true }
            // Real time: a start that returned before `onSent` must see `wasSent` false; 100 ms is far past noise.
            do { try await Task.sleep(for: .milliseconds(100)) } catch { throw .cancelled }
            progress.withLock { $0.sent = true }
            onSent()
            await answer.wait()
            if Task.isCancelled { throw .cancelled }
            _ = onChunk(.text("word"))
        }
    }

    /// A provider that fails at once, before its request could be sent, with an error that is retried; counts attempts.
    final class FailingBeforeSending: ChatProvider {
        private let made = Mutex(0)
        /// How many requests were attempted.
        var attempts: Int { made.withLock { $0 } }

        func streamCompletion(
            _ request: CompletionRequest, onSent: @escaping @Sendable () -> Void,
            onChunk: @escaping @Sendable (CompletionChunk) -> Duration
        ) async throws(ProviderError) {
            made.withLock { $0 += 1 }
            throw .unreachable(detail: "no route")
        }
    }

    /// A provider whose request is stopped by the user as it is made (before the reply's task is known to Stop), then
    /// answers after 5 s unless cancelled.
    final class StoppedWhileStarting: ChatProvider {
        private let stop = Mutex<(@Sendable () -> Void)?>(nil)
        /// Sets what stopping the reply does.
        func onRequest(_ stopReply: @escaping @Sendable () -> Void) { stop.withLock { $0 = stopReply } }

        func streamCompletion(
            _ request: CompletionRequest, onSent: @escaping @Sendable () -> Void,
            onChunk: @escaping @Sendable (CompletionChunk) -> Duration
        ) async throws(ProviderError) {
            stop.withLock { $0 }?()
            onSent()
            // Real time: the answer a missed Stop would let through, 5 s on, long after a stopped reply has ended.
            do { try await Task.sleep(for: .seconds(5)) } catch { throw .cancelled }
            _ = onChunk(.text("too late"))
        }
    }

    /// An image model's provider that draws nothing until released (or 10 s have passed), then fails.
    final class HeldDrawing: ChatProvider, ImageProvider {
        private let held = Gate()
        private let finished = Atomic(false)
        /// Whether the drawing has ended.
        var hasFinished: Bool { finished.load(ordering: .acquiring) }

        func streamCompletion(
            _ request: CompletionRequest, onSent: @escaping @Sendable () -> Void,
            onChunk: @escaping @Sendable (CompletionChunk) -> Duration
        ) async throws(ProviderError) {}

        func generateImage(prompt: String, model: String) async throws(ProviderError) -> GeneratedImage {
            await held.wait()
            finished.store(true, ordering: .releasing)
            throw .unreachable(detail: "nothing drawn")
        }

        /// Lets the drawing end.
        func release() { held.open() }
    }

    /// A provider that sends text, empty text, more text and usage, and records the read pause each chunk asks for.
    final class PauseRecordingProvider: ChatProvider {
        private let recorded = Mutex<[Duration]>([])
        /// The pauses the chunks asked for, in order.
        var pauses: [Duration] { recorded.withLock { $0 } }

        func streamCompletion(
            _ request: CompletionRequest, onSent: @escaping @Sendable () -> Void,
            onChunk: @escaping @Sendable (CompletionChunk) -> Duration
        ) async throws(ProviderError) {
            onSent()
            for chunk in [
                CompletionChunk.text("Hello"), .text(""), .text(" there"),
                .usage(promptTokens: 3, completionTokens: 2, cachedPromptTokens: 0),
            ] {
                let pause = onChunk(chunk)
                recorded.withLock { $0.append(pause) }
            }
        }
    }

    /// The chat model of these tests, served by the provider `withManager` is given.
    static let recorded = ModelInfo(id: "recorded", providerID: "recorder", contextWindow: 8_000)

    /// A manager over a new database of `database`'s kind (with its relay, PostgreSQL's), with one model served by
    /// `provider`, and a conversation of one user.
    static func withManager(
        _ database: TestDatabase, _ provider: some ChatProvider, model: ModelInfo = recorded,
        _ body: (GenerationManager, any ChatStore, Conversation) async throws -> Void
    ) async throws {
        try await database.withStores { stores in
            let store = stores.chat
            let user = try await stores.accounts.createUser(
                email: "start@example.com", passwordHash: "-", isAdmin: false)
            let conversation = try await store.createConversation(
                userID: user.id, title: "t", model: model.id, systemPrompt: "")
            let catalog = ModelCatalog(models: [model], providers: ["recorder": provider], isDemoOnly: false)
            let settings = GenerationSettings(shutdownGrace: .seconds(5), modelTitles: false)
            let manager = GenerationManager(
                store: store, relay: stores.relay, catalog: catalog, settings: settings, logger: Logger(label: "test"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await manager.run() }
                try await body(manager, store, conversation)
                manager.shutdown()
                try await group.waitForAll()
            }
        }
    }

    /// Starts a reply to `question` whose job answers it with the conversation's history.
    static func start(
        _ manager: GenerationManager, _ store: any ChatStore, _ conversation: Conversation, question: String,
        model: ModelInfo = recorded, beforeWriting: @Sendable () -> Void = {}
    ) async throws -> GenerationJob {
        try await manager.start(conversationID: conversation.id, receivedAt: .now) {
            beforeWriting()
            let exchange = try await store.beginExchange(
                conversationID: conversation.id, userContent: question, requestID: nil,
                model: model.id)
            return GenerationJob(
                conversationID: conversation.id, userID: conversation.userID,
                assistantMessageID: exchange.assistantMessage.id,
                systemPrompt: "", model: model, history: exchange.history)
        }
    }

    /// The stored reply of `job` once no reply runs any more (at most 60 s: the full suite on two slow cores once kept
    /// a reply of three retries running past 10 s).
    static func savedWhenDone(
        _ manager: GenerationManager, _ store: any ChatStore, _ conversation: Conversation,
        _ job: GenerationJob
    ) async throws -> Message? {
        let deadline = ContinuousClock.now + .seconds(60)
        while manager.runningCount > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        return try await store.message(id: job.assistantMessageID, userID: conversation.userID)
    }

    @Test(
        "start returns once the provider says the reply's request was sent, while the reply still streams",
        arguments: TestDatabase.allCases)
    func startReturnsOnceTheRequestWasSent(database: TestDatabase) async throws {
        let provider = RecordingProvider()
        try await Self.withManager(database, provider) { manager, store, conversation in
            let job = try await Self.start(manager, store, conversation, question: "hello")
            #expect(provider.wasSent)
            #expect(manager.runningCount == 1)  // the answer waits for the gate
            provider.answer.open()
            let saved = try await Self.savedWhenDone(manager, store, conversation, job)
            #expect(saved?.content == "word" && saved?.status == .complete)
        }
    }

    @Test(
        "start returns when the provider fails before its request was sent, without waiting for the retries",
        arguments: TestDatabase.allCases)
    func startReturnsWhenTheProviderFailsBeforeSending(database: TestDatabase) async throws {
        let provider = FailingBeforeSending()
        try await Self.withManager(database, provider) { manager, store, conversation in
            let job = try await Self.start(manager, store, conversation, question: "hello")
            // Three retries follow, at least 875 ms of backoff in all; the starter went on after the first failure.
            #expect(provider.attempts < 4)
            #expect(try await Self.savedWhenDone(manager, store, conversation, job)?.status == .error)
        }
    }

    @Test(
        "a Stop that comes while the reply's task is starting stops it once the task is known",
        arguments: TestDatabase.allCases)
    func stopWhileStartingStopsTheReply(database: TestDatabase) async throws {
        let provider = StoppedWhileStarting()
        try await Self.withManager(database, provider) { manager, store, conversation in
            provider.onRequest { manager.stop(conversationID: conversation.id) }
            let job = try await Self.start(manager, store, conversation, question: "hello")
            // Stopped, and before the provider's answer came 5 s after the request.
            let saved = try await Self.savedWhenDone(manager, store, conversation, job)
            #expect(saved?.status == .stopped && saved?.content == "")
        }
    }

    @Test("an image model's start does not wait for the picture", arguments: TestDatabase.allCases)
    func imageStartDoesNotWaitForThePicture(database: TestDatabase) async throws {
        let provider = HeldDrawing()
        let drawing = ModelInfo(id: "drawing", providerID: "recorder", generatesImages: true)
        try await Self.withManager(database, provider, model: drawing) { manager, store, conversation in
            let job = try await Self.start(manager, store, conversation, question: "a cat", model: drawing)
            #expect(!provider.hasFinished)
            provider.release()
            #expect(try await Self.savedWhenDone(manager, store, conversation, job)?.status == .error)
        }
    }

    @Test(
        "a reply written while the server begins to shut down ends interrupted, with its done, and never asks upstream",
        arguments: TestDatabase.allCases)
    func replyWrittenDuringShutdown(database: TestDatabase) async throws {
        let provider = RecordingProvider()
        try await Self.withManager(database, provider) { manager, store, conversation in
            let job = try await Self.start(
                manager, store, conversation, question: "too late", beforeWriting: { manager.shutdown() })
            let saved = try await store.message(id: job.assistantMessageID, userID: conversation.userID)
            #expect(saved?.status == .interrupted)
            #expect(!provider.wasRequested)
            #expect(manager.runningCount == 0)
            var subscription = await manager.subscribe(
                conversationID: conversation.id, userID: conversation.userID,
                lastEventID: EventID(messageID: job.assistantMessageID, sequence: 0))
            guard case .frames(let frames, let finishing) = await subscription.next() else {
                Issue.record("no frames for the interrupted reply")
                return
            }
            subscription.close()
            #expect(finishing == job.assistantMessageID)
            #expect(String(decoding: frames, as: UTF8.self).contains("\"status\":\"interrupted\""))
        }
    }

    @Test(
        "each chunk of text asks the provider to leave the next bytes unread for the coalescing interval; others none",
        arguments: TestDatabase.allCases)
    func textChunksPauseReadsForTheCoalescingInterval(database: TestDatabase) async throws {
        let provider = PauseRecordingProvider()
        try await Self.withManager(database, provider) { manager, store, conversation in
            let job = try await Self.start(manager, store, conversation, question: "hello")
            _ = try await Self.savedWhenDone(manager, store, conversation, job)
            let interval = GenerationSettings().coalesceInterval(running: 1)
            #expect(provider.pauses == [interval, .zero, interval, .zero])
        }
    }
}
