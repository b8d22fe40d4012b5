import ArgumentParser
import Foundation

/// `parley-bench page`: a release `parley serve` on a fresh data folder, a conversation of 1,000 messages written
/// through the store (over `--branches` branches), and the time to GET its page, which shows the current branch.
struct PageBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "page", abstract: "Time a conversation page with many messages.")

    @Option(help: "Messages in the conversation (half questions, half markdown replies).") var messages = 1_000
    @Option(help: "Branches the messages are spread over (each an edit halfway down the one before).")
    var branches = 1
    @Option(help: "Timed requests.") var requests = 200
    @Option(help: "The port for the server.") var port = 18_180
    @Option(help: "Where to write the JSON results.") var output = "bench-results/page.json"

    func run() async throws {
        let directory = try TemporaryFolder()
        let server = try LocalServer(dataDirectory: directory.path, port: port)
        defer { server.stop() }
        let (plain, gzip) = try await BenchHTTPClient.with(connections: 4) { client in
            _ = try await server.waitUntilHealthy(client: client)
            let session = try await BenchSession.start(client: client, parley: server.baseURL)
            let conversation = try await ReplyFixture.conversation(
                exchanges: messages / 2, branches: branches, email: BenchSession.email,
                directory: directory.path)
            let url = server.baseURL + "/c/\(conversation)"
            let plain = try await RequestTimer(client: client, token: session.token).time(url, count: requests)
            let gzip = try await RequestTimer(client: client, token: session.token, gzip: true).time(
                url, count: requests)
            return (plain, gzip)
        }
        let summary = Summary(plain.milliseconds), compressed = Summary(gzip.milliseconds)
        try MicroResult(
            benchmark: "page (\(messages) messages over \(branches) branches, \(requests) requests)",
            figures: [
                "first view ms": plain.first, "p50 ms": summary.p50, "p95 ms": summary.p95, "p99 ms": summary.p99,
                "page KB": Double(plain.bytes) / 1024, "gzip p50 ms": compressed.p50,
                "gzip page KB": Double(gzip.bytes) / 1024,
            ],
            goal: "p50 under 50 ms: " + (summary.p50 < 50 ? "met" : "missed")
        ).report(to: output)
    }
}
