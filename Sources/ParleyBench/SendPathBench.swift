import ArgumentParser
import Foundation
import ParleyCore
import ParleyStore

/// `parley-bench send-path`: the store calls one sent message makes, each timed on its own over a real SQLite file, in
/// the order a send makes them: microseconds per call.
struct SendPathBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "send-path", abstract: "Time the store calls of a send.")

    @Option(help: "Messages to send, each in a conversation of its own.") var sends = 2000
    @Option(help: "Where to write the JSON results.") var output = "bench-results/send-path.json"

    func run() async throws {
        let folder = try TemporaryFolder()
        let database = try ParleyDatabase(directory: folder.path)
        let accounts = SQLiteAccountStore(database: database)
        let store = SQLiteChatStore(database: database)
        let user = try await accounts.createUser(email: "send@example.com", passwordHash: "-", isAdmin: false)
        let session = Session(id: "send-path-session", userID: user.id, expiresAt: Date().addingTimeInterval(3600))
        try await accounts.createSession(session)
        var conversations: [Conversation] = []
        for _ in 0..<sends {
            conversations.append(try await store.createConversation(userID: user.id, title: "bench", model: "mock-fast", systemPrompt: ""))
        }
        var timings: [String: [Double]] = [:]
        func time<T>(_ step: String, _ call: () async throws -> T) async throws -> T {
            let start = ContinuousClock.now
            let result = try await call()
            timings[step, default: []].append(start.duration(to: .now).milliseconds * 1000)
            return result
        }
        let pricing = ReplyPricing(modelID: "mock-fast", providerID: "openai", listRates: TokenRates(input: 1, output: 2))
        for conversation in conversations {
            _ = try await time("1 session") { try await accounts.session(id: session.id, now: Date()) }
            _ = try await time("2 conversation") { try await store.conversation(id: conversation.id, userID: user.id) }
            let exchange = try await time("3 beginExchange") {
                try await store.beginExchange(conversationID: conversation.id, userContent: "benchmark question", images: [],
                                              requestID: nil, model: "mock-fast")
            }
            _ = try await time("4 history") {
                try await store.messages(conversationID: conversation.id, userID: user.id, afterID: nil, limit: Int.max)
            }
            let outcome = ReplyOutcome(content: "A benchmark answer.", status: .complete,
                                       usage: Usage(promptTokens: 3, completionTokens: 4), pricing: pricing)
            _ = try await time("5 finishReply") { try await store.finishReply(id: exchange.assistantMessage.id, outcome: outcome) }
        }
        try database.close()
        var figures: [String: Double] = [:]
        for (step, samples) in timings {
            let summary = Summary(samples)
            figures["\(step) p50 µs"] = summary.p50
            figures["\(step) p95 µs"] = summary.p95
        }
        figures["all p50 µs"] = timings.values.map { Summary($0).p50 }.reduce(0, +)
        try MicroResult(benchmark: "send path (store calls of one send, \(sends) sends)", figures: figures, goal: nil).report(to: output)
    }
}
