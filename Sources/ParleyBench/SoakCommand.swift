import ArgumentParser
import AsyncHTTPClient
import Foundation

/// `parley-bench soak`: several users drive a running Parley (and its mock upstream) for a long time with a steady mix
/// of sends, stops, event-stream reconnects with `Last-Event-ID` and page views, while the server's resident memory is
/// sampled. Exits non-zero when a goal fails: an unexpected error, memory growing after the warm-up by more than the
/// tolerance, or a reply or event stream still open once the load has stopped.
struct SoakCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Drive a running Parley with a steady mix for a long time and watch its memory.")

    @Option(help: "Parley's base URL (sign-up must be open).") var parley = "http://127.0.0.1:8080"
    @Option(help: "The mock upstream's base URL.") var mock = "http://127.0.0.1:8089"
    @OptionGroup var trust: TrustOptions
    @Option(help: "The server's process id, to sample its resident memory from /proc.") var serverPid: Int32?
    @Option(help: "How long the load runs, in minutes.") var minutes = 30.0
    @Option(help: "Users, each making one request at a time.") var users = 8
    @Option(help: "Milliseconds each user pauses between two requests.") var pauseMilliseconds = 100
    @Option(help: "Seconds between two memory samples.") var sampleSeconds = 5.0
    @Option(help: "The share of the run that is warm-up: memory is compared from its end.") var warmUp = 0.1
    @Option(help: "How much the resident memory may grow after the warm-up, as a fraction.") var memoryTolerance = 0.1
    @Option(help: "Where to write the JSON results.") var output = "bench-results/soak.json"

    func run() async throws {
        let results = try await BenchHTTPClient.with(trusting: trust.authorities) { client in try await soak(client) }
        print(results.table)
        try JSONFile.write(results, to: output)
        guard results.goals.allSatisfy(\.met) else { throw ExitCode.failure }
    }

    /// Signs the users up, runs their mix until the time is up while sampling memory, and gathers the results.
    private func soak(_ client: HTTPClient) async throws -> SoakResults {
        let tally = SoakTally()
        var people: [SoakUser] = []
        for index in 0..<users {
            people.append(try await SoakUser(index, client: client, parley: parley, mock: mock, tally: tally))
        }
        let length = Duration.seconds(minutes * 60)
        let started = ContinuousClock.now
        let end = started + length
        let pause = Duration.milliseconds(pauseMilliseconds)
        // Every step pauses, so no user can make more requests than this in the time.
        let maxSteps = Int(length / pause) + 1
        Self.say("soak: \(users) users for \(minutes) minutes against \(parley)")
        async let sampled = Self.sampleMemory(
            of: serverPid.map(ServerProcess.init(pid:)), every: .seconds(sampleSeconds),
            from: started, until: end, tally: tally)
        await withTaskGroup(of: Void.self) { group in
            for (index, user) in people.enumerated() {
                group.addTask {
                    var user = user
                    await user.run(offset: index, until: end, pause: pause, maxSteps: maxSteps)
                }
            }
        }
        let memory = await sampled
        let ran = started.duration(to: .now)
        return SoakResults(
            minutes: ran.milliseconds / 60_000, users: users, tally: tally.snapshot, memory: memory,
            warmUpSeconds: length.milliseconds / 1000 * warmUp, memoryTolerance: memoryTolerance,
            leftOpen: try await Self.leftOpen(client: client, parley: parley))
    }

    /// Samples the server's resident memory every `interval` from `started` until `end`, and prints a progress line
    /// every minute.
    private static func sampleMemory(
        of server: ServerProcess?, every interval: Duration, from started: ContinuousClock.Instant,
        until end: ContinuousClock.Instant, tally: SoakTally
    ) async -> [SoakResults.Sample] {
        var samples: [SoakResults.Sample] = []
        var reported = started
        for index in 1..<(Int(started.duration(to: end) / interval) + 1) {
            try? await Task.sleep(until: started + interval * index, clock: .continuous)
            let now = ContinuousClock.now
            let seconds = started.duration(to: now).milliseconds / 1000
            let megabytes = server?.residentMegabytes()
            if let megabytes { samples.append(SoakResults.Sample(seconds: seconds, megabytes: megabytes)) }
            guard reported.duration(to: now) >= .seconds(60) else { continue }
            reported = now
            let figures = tally.snapshot.figures.values
            say(
                String(
                    format: "  %5.1f min: %d requests, %d unexpected errors, RSS ", seconds / 60,
                    figures.map(\.requests).reduce(0, +), figures.map(\.errors).reduce(0, +))
                    + (megabytes.map { String(format: "%.1f MB", $0) } ?? "not sampled"))
        }
        return samples
    }

    /// Writes a line to standard output at once (when it is a file, `print` shows nothing before the end).
    private static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// The gauges of what is still running once the load has stopped, read from `/metrics` until both are 0 (or 10 s).
    private static func leftOpen(client: HTTPClient, parley: String) async throws -> [String: Int] {
        let names = ["parley_generations_running", "parley_event_streams_open"]
        var open: [String: Int] = [:]
        for _ in 0..<100 {
            let response = try await client.execute(HTTPClientRequest(url: parley + "/metrics"), timeout: .seconds(5))
            let lines = String(buffer: try await response.body.collect(upTo: 16 << 20)).split(separator: "\n")
            for name in names {
                open[name] = lines.first { $0.hasPrefix(name + " ") }.flatMap { Int($0.split(separator: " ")[1]) } ?? -1
            }
            if open.values.allSatisfy({ $0 == 0 }) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        return open
    }
}

/// Everything a soak measured, and whether it met its goals.
struct SoakResults: Codable {
    /// One kind of request: how many, how many failed unexpectedly, and the times of the others.
    struct Kind: Codable {
        var requests: Int
        var unexpectedErrors: Int
        var milliseconds: Summary
    }

    /// The server's resident memory at a time of the run.
    struct Sample: Codable {
        var seconds: Double
        var megabytes: Double
    }

    /// A goal and whether it was met.
    struct Goal: Codable {
        var goal: String
        var met: Bool
    }

    var minutes: Double
    var users: Int
    var kinds: [String: Kind]
    var unexpectedErrors: Int
    var errorSamples: [String]
    var memory: [Sample]
    var memoryAfterWarmUp: Sample?
    var memoryAtEnd: Sample?
    var memoryGrowthPercent: Double?
    var leftOpen: [String: Int]
    var goals: [Goal]

    /// Gathers the figures and checks the goals.
    init(
        minutes: Double, users: Int, tally: SoakTally.State, memory: [Sample], warmUpSeconds: Double,
        memoryTolerance: Double,
        leftOpen: [String: Int]
    ) {
        self.minutes = minutes
        self.users = users
        kinds = Dictionary(
            uniqueKeysWithValues: tally.figures.map { kind, figures in
                (
                    kind.rawValue,
                    Kind(
                        requests: figures.requests, unexpectedErrors: figures.errors,
                        milliseconds: Summary(figures.milliseconds))
                )
            })
        unexpectedErrors = tally.figures.values.map(\.errors).reduce(0, +)
        errorSamples = tally.errorSamples
        self.memory = memory
        memoryAfterWarmUp = memory.first { $0.seconds >= warmUpSeconds }
        memoryAtEnd = memory.last
        if let start = memoryAfterWarmUp, let end = memoryAtEnd {
            memoryGrowthPercent = (end.megabytes / start.megabytes - 1) * 100
        }
        self.leftOpen = leftOpen
        goals = [
            Goal(goal: "no unexpected errors", met: unexpectedErrors == 0),
            Goal(
                goal: String(format: "RSS at the end within %.0f%% of RSS after the warm-up", memoryTolerance * 100),
                met: memoryGrowthPercent.map { $0 <= memoryTolerance * 100 } ?? false),
            Goal(
                goal: "no reply running and no event stream open once the load stopped",
                met: !leftOpen.isEmpty && leftOpen.values.allSatisfy { $0 == 0 }),
        ]
    }

    /// A plain-text report: a table of the kinds of request, the memory, what was left open and the goals.
    var table: String {
        var lines = [
            String(format: "soak: %.1f minutes, %d users", minutes, users),
            "kind       requests  unexpected errors    p50 ms    p95 ms    p99 ms",
        ]
        for kind in SoakAction.allCases {
            guard let figures = kinds[kind.rawValue] else { continue }
            lines.append(
                kind.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)
                    + String(
                        format: " %8d  %17d  %8.1f  %8.1f  %8.1f", figures.requests, figures.unexpectedErrors,
                        figures.milliseconds.p50, figures.milliseconds.p95, figures.milliseconds.p99))
        }
        lines.append(
            String(format: "all        %8d  %17d", kinds.values.map(\.requests).reduce(0, +), unexpectedErrors))
        lines.append(
            "times: send = first token; reconnect = send to done over both connections; stop = stop to upstream closed; "
                + "others = the whole request")
        if let start = memoryAfterWarmUp, let end = memoryAtEnd, let growth = memoryGrowthPercent {
            lines.append(
                String(
                    format:
                        "RSS: %.1f MB after the warm-up (%.0f s), %.1f MB at the end (%.0f s): %+.1f%%; peak %.1f MB",
                    start.megabytes, start.seconds, end.megabytes, end.seconds, growth,
                    memory.map(\.megabytes).max() ?? .nan))
        } else {
            lines.append("RSS: not sampled (give --server-pid)")
        }
        lines.append(
            "left open afterwards: "
                + leftOpen.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        lines += goals.map { "goal: \($0.goal): " + ($0.met ? "met" : "MISSED") }
        if !errorSamples.isEmpty { lines += ["first unexpected errors:"] + errorSamples.map { "  " + $0 } }
        return lines.joined(separator: "\n")
    }
}
