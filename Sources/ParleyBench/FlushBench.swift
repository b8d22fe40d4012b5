import ArgumentParser
import Foundation
import ParleyCore
import ParleyStore

/// `parley-bench flush`: the persistence flush, `SQLiteChatStore.saveProgress`, of many running replies at once on a
/// real SQLite file: milliseconds per flush.
struct FlushBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "flush", abstract: "Time the persistence flush.")

    @Option(help: "Running replies per flush, comma-separated.") var replies = "100,1000"
    @Option(help: "Flushes per size; each appends ~30 characters to every reply.") var flushes = 100
    @Option(help: "Where to write the JSON results.") var output = "bench-results/flush.json"

    func run() async throws {
        var figures: [String: Double] = [:]
        for count in replies.split(separator: ",").compactMap({ Int($0) }) {
            let folder = try TemporaryFolder()
            let database = try ParleyDatabase(directory: folder.path)
            let ids = try await runningReplies(count, in: database)
            let store = SQLiteChatStore(database: database)
            var samples: [Double] = []
            var text = ""
            for _ in 0..<flushes {
                text += " The quick brown fox jumps over."
                let contents = Dictionary(uniqueKeysWithValues: ids.map { ($0, text) })
                let start = ContinuousClock.now
                try await store.saveProgress(contents)
                samples.append(start.duration(to: .now).milliseconds)
            }
            try database.close()
            let summary = Summary(samples)
            figures["\(count) replies p50 ms"] = summary.p50
            figures["\(count) replies p95 ms"] = summary.p95
        }
        try MicroResult(benchmark: "flush (saveProgress, \(flushes) flushes)", figures: figures, goal: nil).report(
            to: output)
    }

    /// Creates a user, one conversation per reply and a streaming reply in each; returns the replies' ids.
    private func runningReplies(_ count: Int, in database: ParleyDatabase) async throws -> [MessageID] {
        let user = try await SQLiteAccountStore(database: database)
            .createUser(email: "flush@example.com", passwordHash: "-", isAdmin: false)
        let store = SQLiteChatStore(database: database)
        var ids: [MessageID] = []
        for _ in 0..<count {
            let conversation = try await store.createConversation(
                userID: user.id, title: "flush", model: "mock-fast", systemPrompt: "")
            ids.append(
                try await store.beginExchange(
                    conversationID: conversation.id, userContent: "Go", images: [],
                    requestID: nil, model: "mock-fast"
                ).assistantMessage.id)
        }
        return ids
    }
}
