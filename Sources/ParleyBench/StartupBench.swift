import ArgumentParser
import Foundation

/// `parley-bench startup`: the time from starting `parley serve` to `/healthz` answering on a large database, and the
/// server's resident memory once idle.
struct StartupBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "startup", abstract: "Time start-up on a large database.")

    @Option(help: "The data folder; a usage fixture is written there first when it holds no database.")
    var dataDir = FixtureFolder.defaultPath
    @Option(help: "Messages in the fixture, when one is written.") var messages = 1_000_000
    @Option(help: "Starts to time.") var runs = 3
    @Option(help: "The port for the server.") var port = 18_181
    @Option(help: "Where to write the JSON results.") var output = "bench-results/startup.json"

    func run() async throws {
        let size = try await FixtureFolder.ensure(dataDir, messages: messages)
        var startups: [Double] = [], memory: [Double] = []
        try await BenchHTTPClient.with(connections: 4) { client in
            for _ in 0..<runs {
                let server = try LocalServer(dataDirectory: dataDir, port: port)
                defer { server.stop() }
                startups.append(try await server.waitUntilHealthy(client: client))
                try await Task.sleep(for: .seconds(1))
                memory.append(server.measured.residentMegabytes() ?? .nan)
            }
        }
        let start = Summary(startups), idle = Summary(memory)
        try MicroResult(
            benchmark: "startup (\(String(format: "%.0f", size)) MB database, \(runs) starts)",
            figures: [
                "database MB": size, "start to healthz p50 ms": start.p50,
                "start to healthz max ms": startups.max() ?? .nan,
                "idle RSS p50 MB": idle.p50,
            ],
            goal:
                "start under 1,000 ms: \(start.p50 < 1000 ? "met" : "missed"); idle under 50 MB: \(idle.p50 < 50 ? "met" : "missed")"
        )
        .report(to: output)
    }
}
