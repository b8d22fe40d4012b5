import ArgumentParser
import Foundation
import Logging
import ParleyCore
import ParleyPostgres
import ParleyStore

/// `parley-bench send-path`: the store calls one sent message makes, each timed on its own over a real SQLite file (or
/// a PostgreSQL database), in the order a send makes them, in conversations that already hold some exchanges:
/// microseconds per call. Then the writes of the same sends made many at a time, as when many people send at once:
/// sends a second and this process's CPU a send.
struct SendPathBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send-path", abstract: "Time the store calls of a send.")

    @Option(help: "Messages to send, each in a conversation of its own.") var sends = 1000
    @Option(help: "Exchanges (a question and its answer) each conversation holds before the timed send.") var earlier =
        10
    @Option(
        help: "Sends at once in a second pass: each begins its exchange and finishes its reply, as many replies do.")
    var concurrent = 50
    @Option(help: "Where to write the JSON results.") var output = "bench-results/send-path.json"
    @Option(help: "A PostgreSQL database to use instead of a new SQLite file (postgres://…); it should be empty.")
    var databaseURL: String?

    /// Refuses counts that would time nothing.
    func validate() throws {
        guard sends > 0, earlier >= 0, concurrent > 0 else {
            throw ValidationError("--sends and --concurrent must be positive, --earlier zero or more")
        }
    }

    func run() async throws {
        if let databaseURL {
            let logger = Logger(label: "parley-bench")
            try await PostgresStorage.withRunning(try PostgresLocation(url: databaseURL), logger: logger) { storage in
                try await measure(StoreSet(postgres: storage))
            }
        } else {
            let folder = try TemporaryFolder()
            let database = try ParleyDatabase(directory: folder.path)
            try await measure(StoreSet(sqlite: database))
            try database.close()
        }
    }

    /// Times the sends against `stores`.
    private func measure(_ stores: StoreSet) async throws {
        let (accounts, store) = (stores.accounts, stores.chat)
        let user = try await accounts.createUser(email: "send@example.com", passwordHash: "-", isAdmin: false)
        let session = Session(id: "send-path-session", userID: user.id, expiresAt: Date().addingTimeInterval(3600))
        try await accounts.createSession(session, origin: .unknown)
        let pricing = ReplyPricing(
            modelID: "mock-fast", providerID: "openai", listRates: TokenRates(input: 1, output: 2))
        /// Writes a question and its streaming placeholder, as a send does; returns the exchange.
        func exchange(in conversation: Conversation) async throws -> Exchange {
            try await store.beginExchange(
                conversationID: conversation.id, userContent: "benchmark question", images: [],
                requestID: nil, model: "mock-fast")
        }
        let outcome = ReplyOutcome(
            content: String(repeating: "A benchmark answer of a few words. ", count: 20), status: .complete,
            usage: Usage(promptTokens: 3, completionTokens: 4), pricing: pricing)
        var conversations: [Conversation] = []
        for _ in 0..<sends {
            let conversation = try await store.createConversation(
                userID: user.id, title: "bench", model: "mock-fast", systemPrompt: "")
            for _ in 0..<earlier {
                _ = try await store.finishReply(
                    id: try await exchange(in: conversation).assistantMessage.id, outcome: outcome)
            }
            conversations.append(conversation)
        }
        var timings: [String: [Double]] = [:]
        func time<T>(_ step: String, _ call: () async throws -> T) async throws -> T {
            let start = ContinuousClock.now
            let result = try await call()
            timings[step, default: []].append(start.duration(to: .now).milliseconds * 1000)
            return result
        }
        for conversation in conversations {
            _ = try await time("1 session") { try await accounts.session(id: session.id, now: Date()) }
            _ = try await time("2 conversation") { try await store.conversation(id: conversation.id, userID: user.id) }
            // It reads the conversation the reply answers too.
            let started = try await time("3 beginExchange") { try await exchange(in: conversation) }
            _ = try await time("4 finishReply") {
                try await store.finishReply(id: started.assistantMessage.id, outcome: outcome)
            }
        }
        // Then every conversation sends again, `concurrent` at a time: the store calls of sends that overlap.
        let cpuBefore = CPUClock.processSeconds()
        let wallBefore = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, conversation) in conversations.enumerated() {
                if index >= concurrent { try await group.next() }
                group.addTask {
                    let started = try await exchange(in: conversation)
                    _ = try await store.finishReply(id: started.assistantMessage.id, outcome: outcome)
                }
            }
            try await group.waitForAll()
        }
        let overlapped = (
            wall: wallBefore.duration(to: .now).milliseconds / 1000, cpu: CPUClock.processSeconds() - cpuBefore
        )
        var figures: [String: Double] = [:]
        figures["\(concurrent) at once: sends a second"] = Double(conversations.count) / overlapped.wall
        figures["\(concurrent) at once: CPU µs a send"] = overlapped.cpu / Double(conversations.count) * 1_000_000
        for (step, samples) in timings {
            let summary = Summary(samples)
            figures["\(step) p50 µs"] = summary.p50
            figures["\(step) p95 µs"] = summary.p95
        }
        figures["all p50 µs"] = timings.values.map { Summary($0).p50 }.reduce(0, +)
        try MicroResult(
            benchmark:
                "send path (store calls of one send on \(databaseURL == nil ? "SQLite" : "PostgreSQL"), \(sends) sends"
                + " after \(earlier) exchanges each)",
            figures: figures, goal: nil
        ).report(to: output)
    }
}
