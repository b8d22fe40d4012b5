import Foundation
import MockUpstream
import NIOCore
import Synchronization
import Testing

/// A thousand event-stream clients that never read or vanish mid-stream, against the real `parley serve`, while a
/// few others stream normally.
@Suite(
    "Reliability: slow and vanishing clients",
    .enabled(
        if: ProcessInfo.processInfo.environment["PARLEY_RELIABILITY"] == "1",
        "heavy: run with PARLEY_RELIABILITY=1 (docs/RELIABILITY.md)"))
struct ReliabilitySlowClientTests {
    static let silentClients = 600
    static let vanishingClients = 400
    static let crowdedConversations = 10
    static let normalConversations = 5
    /// `mock-fast` replies of 200 tokens and `mock-long` ones of ~960 chunks, 5 ms apart (about 1 s and 5 s).
    static let mock = MockUpstreamConfiguration(port: 0, tokens: 200, delayMilliseconds: 5)
    /// The server's growth allowed while the hostile clients are connected: 100 KB per connection (the design's
    /// measured 80 KB per open stream, plus room), i.e. 100 MB for 1,000. A server that buffered a reply per stuck
    /// client (each `mock-long` reply is ~10 KB of events, sent to 100 clients per conversation) would still pass,
    /// so the test also checks that the buffers go away: the growth must fall back once the clients are gone.
    static let growthPerClientKB = 100

    /// How the normal clients' replies went: the slowest first token and the slowest whole reply.
    struct Latency: CustomStringConvertible {
        var firstToken: Duration
        var reply: Duration

        var description: String {
            "first token \(firstToken.formatted(.units(allowed: [.milliseconds]))), "
                + "reply \(reply.formatted(.units(allowed: [.milliseconds])))"
        }
    }

    @Test(
        "1,000 event streams that never read or vanish mid-stream: the server's memory stays bounded, other clients' replies are not slowed beyond a bound, every reply completes and every stream is released"
    )
    func hostileClients() async throws {
        try await ProcessHarness.with(mock: Self.mock, environment: ["PARLEY_MODEL_TITLES": "off"]) { harness in
            let (process, server) = try await harness.start()
            let pid = process.processIdentifier
            let api = try await server.signUp("user@example.com").api
            let token = try #require(api.token)
            var crowded: [Int64] = [], normal: [Int64] = []
            for _ in 0..<Self.crowdedConversations {
                crowded.append(try await api.createConversation(model: "mock-long"))
            }
            for _ in 0..<Self.normalConversations {
                normal.append(try await api.createConversation(model: "mock-fast"))
            }

            _ = try await Self.normalReplies(api, normal)
            let baseline = try await Self.normalReplies(api, normal)
            let rssBefore = try #require(ProcessMemory.residentKilobytes(of: pid))

            let silent = try await Self.open(
                Self.silentClients, port: server.port, conversations: crowded, token: token, reads: false)
            let vanishing = try await Self.open(
                Self.vanishingClients, port: server.port, conversations: crowded, token: token, reads: true)
            let peak = Mutex(rssBefore)
            let sampler = Task {
                while !Task.isCancelled, let rss = ProcessMemory.residentKilobytes(of: pid) {
                    peak.withLock { $0 = max($0, rss) }
                    // Real time: the server's memory is sampled as it runs, every 100 ms (tens of samples a reply).
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
            defer { sampler.cancel() }
            for id in crowded { #expect(try await api.send(id, "a long one please").status == 202) }
            // The vanishing clients leave mid-stream: once every long reply streams from the mock (about 5 s each).
            let streaming = try await server.waitForMock(timeout: .seconds(30)) { $0.open == Self.crowdedConversations }
            #expect(streaming.open == Self.crowdedConversations, "long replies streaming: \(streaming.open)")
            for channel in vanishing { channel.close(promise: nil) }
            let loaded = try await Self.normalReplies(api, normal)
            let running = try await server.waitForGauge(
                "parley_generations_running", toBe: 0, within: .seconds(60), every: .milliseconds(100))
            #expect(running == 0, "replies still running after 60 s: \(running.map(String.init) ?? "no gauge")")
            let rssLoaded = try #require(ProcessMemory.residentKilobytes(of: pid))
            for id in crowded {
                #expect(
                    try await api.messages(id).last?["status"] as? String == "complete",
                    "a stuck client held up its reply")
            }
            for channel in silent { channel.close(promise: nil) }
            let open = try await server.waitForGauge(
                "parley_event_streams_open", toBe: 0, within: .seconds(20), every: .milliseconds(100))
            #expect(open == 0, "streams still open after 20 s: \(open.map(String.init) ?? "no gauge")")
            let rssAfter = try #require(ProcessMemory.residentKilobytes(of: pid))
            let peakKB = peak.withLock { $0 }
            print(
                "[slow clients] RSS before \(rssBefore / 1024) MB, peak \(peakKB / 1024) MB, after replies \(rssLoaded / 1024) MB, "
                    + "after the clients left \(rssAfter / 1024) MB; normal replies alone: \(baseline); with 1,000 hostile clients: \(loaded)"
            )
            let clients = Self.silentClients + Self.vanishingClients
            #expect(
                peakKB - rssBefore <= clients * Self.growthPerClientKB,
                "memory grew by \((peakKB - rssBefore) / 1024) MB")
            // Generous for two busy cores, but a reply held up by a stuck client would wait for the 60 s idle timeout.
            #expect(loaded.firstToken <= baseline.firstToken * 4 + .seconds(2))
            #expect(loaded.reply <= baseline.reply * 4 + .seconds(3))
        }
    }

    /// Streams one reply on each of `conversations` at once; checks each is complete and whole, returns the latency.
    static func normalReplies(_ api: APIClient, _ conversations: [Int64]) async throws -> Latency {
        let expected = MockReply.text(model: "mock-fast", tokens: mock.tokens)
        return try await withThrowingTaskGroup(of: Latency.self) { group in
            for id in conversations {
                group.addTask {
                    let started = ContinuousClock.now
                    let reader = try await api.sendStreaming(id, "a question")
                    let head = try await reader.untilTokens(1, timeout: .seconds(30))
                    let firstToken = started.duration(to: .now)
                    let rest = try await reader.untilDone(timeout: .seconds(60))
                    #expect(rest.done?.json["status"] as? String == "complete")
                    #expect((head + rest).text == expected)
                    return Latency(firstToken: firstToken, reply: started.duration(to: .now))
                }
            }
            var slowest = Latency(firstToken: .zero, reply: .zero)
            for try await latency in group {
                slowest = Latency(
                    firstToken: max(slowest.firstToken, latency.firstToken), reply: max(slowest.reply, latency.reply))
            }
            return slowest
        }
    }

    /// Opens `count` raw event streams spread over `conversations`, 50 at a time.
    static func open(_ count: Int, port: Int, conversations: [Int64], token: String, reads: Bool) async throws
        -> [Channel]
    {
        var channels: [Channel] = []
        for batch in stride(from: 0, to: count, by: 50) {
            try await withThrowingTaskGroup(of: Channel.self) { group in
                for index in batch..<min(count, batch + 50) {
                    let conversation = conversations[index % conversations.count]
                    group.addTask {
                        try await RawEventStream.open(
                            port: port, conversation: conversation, token: token, reads: reads)
                    }
                }
                for try await channel in group { channels.append(channel) }
            }
        }
        return channels
    }
}
