import ArgumentParser
import AsyncHTTPClient
import Foundation

/// `parley-bench`: Parley's benchmarks, end to end (the default) and of its hot paths.
@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "parley-bench", abstract: "Measure Parley.",
                                                    subcommands: [LoadBench.self, MarkdownBench.self],
                                                    defaultSubcommand: LoadBench.self)
}

/// `parley-bench load`: drives a running Parley and its mock upstream, and prints how much Parley adds to the first
/// token and how fast Stop closes the upstream request.
struct LoadBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "load",
                                                    abstract: "Measure Parley against a running mock-upstream.")

    @Option(help: "Parley's base URL.") var parley = "http://127.0.0.1:8080"
    @Option(help: "The mock upstream's base URL.") var mock = "http://127.0.0.1:8089"
    @Option(help: "Concurrent streams per round, comma-separated.") var concurrency = "1,100,500"
    @Option(help: "Rounds per concurrency level.") var rounds = 3
    @Option(help: "Stop measurements to take.") var stops = 20
    @Option(help: "Where to write the JSON results.") var output = "bench-results/latest.json"

    func run() async throws {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 20_000)
        configuration.timeout = .init(connect: .seconds(30), read: .seconds(60))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let results = try await measure(client)
            try results.write(to: output)
            print(results.table)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    private func measure(_ client: HTTPClient) async throws -> BenchResults {
        let session = try await BenchSession.start(client: client, parley: parley)
        let probe = StreamProbe(client: client, parley: parley, mock: mock, token: session.token)
        var results = BenchResults()
        for level in concurrency.split(separator: ",").compactMap({ Int($0) }) {
            let conversations = try await session.conversations(count: level)
            var direct: [Double] = [], relayed: [Double] = [], errors = 0
            for _ in 0..<rounds {
                let round = try await probe.firstTokenRound(conversations: conversations)
                direct += round.direct
                relayed += round.relayed
                errors += round.errors
            }
            results.levels.append(.init(concurrency: level, direct: Summary(direct), relayed: Summary(relayed), errors: errors))
        }
        let stopConversations = try await session.conversations(count: 1, model: "mock-slow")
        var stopLatencies: [Double] = []
        for _ in 0..<stops {
            stopLatencies.append(try await probe.stopLatency(conversation: stopConversations[0]))
        }
        results.stop = Summary(stopLatencies)
        return results
    }
}
