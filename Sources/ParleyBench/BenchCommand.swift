import ArgumentParser
import AsyncHTTPClient
import Foundation

/// `parley-bench`: Parley's benchmarks, end to end (the default) and of its hot paths.
@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley-bench", abstract: "Measure Parley.",
        subcommands: [
            LoadBench.self, MarkdownBench.self, PageBench.self, StartupBench.self,
            SSEBench.self, FlushBench.self, SendPathBench.self, AdminBench.self, SoakCommand.self,
            RetrievalBench.self,
        ],
        defaultSubcommand: LoadBench.self)
}

/// `parley-bench load`: drives a running Parley and its mock upstream, and prints how much Parley adds to the first
/// token and how fast Stop closes the upstream request.
struct LoadBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Measure Parley against a running mock-upstream.")

    @Option(help: "Parley's base URL.") var parley = "http://127.0.0.1:8080"
    @Option(help: "The mock upstream's base URL.") var mock = "http://127.0.0.1:8089"
    @OptionGroup var trust: TrustOptions
    @Option(help: "Concurrent streams per round, comma-separated.") var concurrency = "1,100,500"
    @Option(help: "Rounds per concurrency level.") var rounds = 3
    @Option(help: "Milliseconds between the starts of two streams of a round (they ramp up, then run together).")
    var rampMilliseconds = 2.0
    @Option(help: "Requests straight to the mock per round, spread over the ramp (or the hold).") var directSamples =
        100
    @Option(
        help: """
            Seconds to keep every conversation streaming once all have started, each sending again when its reply ends; \
            only the sends made then are timed, all meeting the level's other streams. 0: one reply per conversation.
            """)
    var holdSeconds = 0.0
    @Option(help: "The server's process id, to read its CPU time and memory from /proc.") var serverPid: Int32?
    @Option(help: "Stop measurements to take.") var stops = 20
    @Option(help: "Where to write the JSON results.") var output = "bench-results/latest.json"
    @Option(help: "Where replies are asked for: conversation (the JSON API's event stream) or openai (/v1).")
    var endpoint = StreamProbe.Endpoint.conversation

    func validate() throws {
        guard holdSeconds >= 0 else { throw ValidationError("--hold-seconds cannot be negative") }
    }

    func run() async throws {
        let authorities = trust.authorities
        let levels = concurrency.split(separator: ",").compactMap { Int($0) }
        // Over HTTPS, Parley speaks HTTP/2, and each client then carries a share of the streams.
        let streamClients =
            parley.hasPrefix("https:") ? (levels.max() ?? 1) / BenchHTTPClient.streamsPerHTTP2Client + 1 : 0
        let results = try await BenchHTTPClient.with(trusting: authorities) { client in
            try await BenchHTTPClient.with(count: streamClients, trusting: authorities) { streams in
                try await measure(client, streams: streams.isEmpty ? [client] : streams, levels: levels)
            }
        }
        print(results.table)
        try results.write(to: output)
    }

    /// Runs every concurrency level of `levels`, the replies through `streams`, then the Stop measurements.
    private func measure(_ client: HTTPClient, streams: [HTTPClient], levels: [Int]) async throws -> BenchResults {
        let session = try await BenchSession.start(client: client, parley: parley)
        let probe = StreamProbe(
            client: client, streams: streams, parley: parley, mock: mock, token: session.token, endpoint: endpoint)
        let server = serverPid.map(ServerProcess.init(pid:))
        var results = BenchResults()
        results.idleMemoryMB = server?.residentMegabytes()
        for level in levels {
            // A completion needs no conversation: the numbers only pick each stream's client.
            let conversations =
                endpoint == .openai ? Array(0..<level) : try await session.conversations(count: level)
            var total = StreamProbe.SteadyRound()
            // Parley's own part of the first tokens, as the server times them: over the level's rounds, or over each
            // round's hold when holding (read once a level otherwise, so that reading it does not load the rounds).
            var parleyShare = AddedTimeHistogram()
            let levelBefore = holdSeconds > 0 ? nil : try await AddedTimeHistogram.read(client, parley: parley)
            let cpuBefore = server?.cpuSeconds()
            let ramp = Duration.microseconds(Int64(rampMilliseconds * 1000))
            let (_, peak) = try await ServerProcess.peakMemory(of: server) {
                for _ in 0..<rounds {
                    let round: StreamProbe.SteadyRound
                    if holdSeconds > 0 {
                        async let holdBefore = AddedTimeHistogram.read(
                            client, parley: parley, at: .now + ramp * conversations.count)
                        round = await probe.heldRound(
                            conversations: conversations, rampPerStream: ramp,
                            hold: .milliseconds(Int64(holdSeconds * 1000)), directSamples: directSamples)
                        parleyShare.add(
                            try await AddedTimeHistogram.read(client, parley: parley).subtracting(try await holdBefore))
                    } else {
                        round = await probe.steadyRound(
                            conversations: conversations, rampPerStream: ramp, directSamples: directSamples)
                    }
                    total.add(round)
                    total.seconds += round.seconds
                }
            }
            let cpuAfter = server?.cpuSeconds()
            if let levelBefore {
                parleyShare = try await AddedTimeHistogram.read(client, parley: parley).subtracting(levelBefore)
            }
            let cpu: Double? = if let cpuBefore, let cpuAfter { cpuAfter - cpuBefore } else { nil }
            results.levels.append(
                .init(
                    concurrency: level, direct: Summary(total.direct), relayed: Summary(total.relayed),
                    errors: total.errors.count, firstErrors: Array(total.errors.prefix(5)),
                    tokensPerSecond: Double(total.tokens) / total.seconds,
                    cpuSecondsPer1000Tokens: cpu.map { $0 / Double(max(1, total.tokens)) * 1000 },
                    peakMemoryMB: peak, parleyShareP50: parleyShare.quantile(0.5),
                    parleyShareP99: parleyShare.quantile(0.99)))
        }
        guard stops > 0, endpoint == .conversation else { return results }
        let stopConversations = try await session.conversations(count: 1, model: "mock-slow")
        var stopLatencies: [Double] = []
        for _ in 0..<stops {
            stopLatencies.append(try await probe.stopLatency(conversation: stopConversations[0]))
        }
        results.stop = Summary(stopLatencies)
        return results
    }
}
