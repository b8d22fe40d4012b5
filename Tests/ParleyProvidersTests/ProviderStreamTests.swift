import MockUpstream
import ParleyCore
import Synchronization
import Testing

@testable import ParleyProviders

/// Every wire format against the mock upstream over loopback HTTP: replies, faults, deadlines and cancellation.
@Suite struct ProviderStreamTests {
    typealias Harness = ProviderHarness

    @Test("a reply streams its text, then the provider's usage", arguments: ProviderKind.allCases)
    func replyStreamsTextThenUsage(kind: ProviderKind) async throws {
        try await withMock { mock in
            let (chunks, error) = await Harness.collect(
                Harness.provider(kind, mock: mock), Harness.request(model: "mock-fast"))
            #expect(error == nil)
            #expect(
                chunks == Harness.texts("mock-fast") + [
                    .usage(promptTokens: Harness.promptTokens, completionTokens: MockUpstreamTests.tokens)
                ])
        }
    }

    @Test(
        "a reply cut at its output limit (finish_reason length, stop_reason max_tokens, finishReason MAX_TOKENS) says so",
        arguments: ProviderKind.allCases)
    func replyCutAtLimit(kind: ProviderKind) async throws {
        try await withMock { mock in
            let (chunks, error) = await Harness.collect(
                Harness.provider(kind, mock: mock), Harness.request(model: "mock-length"))
            #expect(error == nil)
            #expect(chunks.filter { $0 == .cutAtLimit }.count == 1)
            #expect(chunks.filter { if case .text = $0 { true } else { false } } == Harness.texts("mock-length"))
        }
    }

    @Test("a long reply arrives whole", arguments: ProviderKind.allCases)
    func longReplyArrivesWhole(kind: ProviderKind) async throws {
        try await withMock { mock in
            let (chunks, error) = await Harness.collect(
                Harness.provider(kind, mock: mock), Harness.request(model: "mock-long"))
            #expect(error == nil)
            #expect(Array(chunks.dropLast()) == Harness.texts("mock-long"))
        }
    }

    @Test(
        "a sink that asks for a pause gets the chunks sent meanwhile at once, and the whole reply at the upstream's pace",
        arguments: ProviderKind.allCases)
    func readPauseBatchesChunks(kind: ProviderKind) async throws {
        let tokens = 40
        try await withMock(.init(port: 0, tokens: tokens, delayMilliseconds: 10)) { mock in
            let arrivals = Mutex<[ContinuousClock.Instant]>([])
            let (chunks, error) = await Harness.collect(
                Harness.provider(kind, mock: mock), Harness.request(model: "mock-fast"),
                pause: .milliseconds(200)
            ) { chunk in
                if case .text = chunk { arrivals.withLock { $0.append(.now) } }
            }
            #expect(error == nil)
            #expect(
                Array(chunks.dropLast())
                    == MockReply.chunks(model: "mock-fast", tokens: tokens).map(CompletionChunk.text))
            // 40 chunks 10 ms apart, read every 200 ms: a few bursts (one per chunk without the pause).
            let times = arrivals.withLock { $0 }
            let bursts = 1 + zip(times, times.dropFirst()).filter { $0.duration(to: $1) > .milliseconds(5) }.count
            #expect(bursts <= 12, "bursts: \(bursts)")
            // The chunks read together are not paused one by one, which would take 39 × 200 ms.
            let spread = try #require(times.first).duration(to: try #require(times.last))
            #expect(spread < .seconds(4), "from the first chunk to the last: \(spread)")
        }
    }

    @Test("a rate limit throws with the Retry-After seconds (the caller retries)", arguments: ProviderKind.allCases)
    func rateLimitCarriesRetryAfter(kind: ProviderKind) async throws {
        try await withMock { mock in
            let provider = Harness.provider(kind, mock: mock)
            let first = await Harness.collect(provider, Harness.request(model: "mock-429"))
            #expect(first.error == .rateLimited(retryAfterSeconds: 1))
            #expect(first.chunks.isEmpty)
            let second = await Harness.collect(provider, Harness.request(model: "mock-429"))
            #expect(second.error == nil)
            #expect(Array(second.chunks.dropLast()) == Harness.texts("mock-429"))
        }
    }

    @Test("a server error is an overloaded provider", arguments: ProviderKind.allCases)
    func serverErrorIsOverloaded(kind: ProviderKind) async throws {
        try await withMock { mock in
            let (chunks, error) = await Harness.collect(
                Harness.provider(kind, mock: mock), Harness.request(model: "mock-500"))
            #expect(error == .overloaded(status: 500))
            #expect(error?.reason.code == "provider_overloaded")
            #expect(chunks.isEmpty)
        }
    }

    @Test("a dropped connection is unreachable, after the text that came", arguments: ProviderKind.allCases)
    func droppedConnectionIsUnreachable(kind: ProviderKind) async throws {
        try await withMock { mock in
            let (chunks, error) = await Harness.collect(
                Harness.provider(kind, mock: mock), Harness.request(model: "mock-reset"))
            #expect(error?.reason.code == "upstream_unreachable")
            #expect(chunks == Harness.texts("mock-reset", first: MockReply.tokensBeforeFault))
        }
    }

    @Test(
        "a reply whose closing events came is complete, though the connection dropped before the response's end",
        arguments: ProviderKind.allCases)
    func connectionDroppedAfterTheReplyEnded(kind: ProviderKind) async throws {
        try await withMock { mock in
            let (chunks, error) = await Harness.collect(
                Harness.provider(kind, mock: mock), Harness.request(model: "mock-cut"))
            #expect(error == nil)
            #expect(Array(chunks.dropLast()) == Harness.texts("mock-cut"))
            // The mock counts a stream it dropped on purpose as neither completed nor aborted.
            let stats = try await mock.stats()
            #expect(stats["requests"] as? Int == 1 && stats["open"] as? Int == 0)
            #expect(stats["completed"] as? Int == 0 && stats["aborted"] as? Int == 0)
        }
    }

    @Test("a stalled stream times out after the between-tokens deadline", arguments: ProviderKind.allCases)
    func stalledStreamTimesOut(kind: ProviderKind) async throws {
        try await withMock { mock in
            // The first-token deadline is far away, so a timeout well before it is the between-tokens one (the bound is
            // loose: the whole suite runs in parallel on two cores).
            let timeouts = UpstreamTimeouts(firstToken: .seconds(120), betweenTokens: .milliseconds(300))
            let started = ContinuousClock.now
            let (chunks, error) = await Harness.collect(
                Harness.provider(kind, mock: mock, timeouts: timeouts),
                Harness.request(model: "mock-stall"))
            #expect(error == .timedOut)
            #expect(chunks == Harness.texts("mock-stall", first: MockReply.tokensBeforeFault))
            #expect(ContinuousClock.now - started < .seconds(60))
            // Timing out closes the upstream request.
            let stats = try await Harness.waitForAbort(mock)
            #expect(stats["aborted"] as? Int == 1)
        }
    }

    @Test("a first token slower than its deadline times out", arguments: ProviderKind.allCases)
    func slowFirstTokenTimesOut(kind: ProviderKind) async throws {
        try await withMock(.init(port: 0, tokens: 3, firstTokenMilliseconds: 3_000)) { mock in
            let timeouts = UpstreamTimeouts(firstToken: .milliseconds(300), betweenTokens: .seconds(10))
            let (chunks, error) = await Harness.collect(
                Harness.provider(kind, mock: mock, timeouts: timeouts),
                Harness.request(model: "mock-fast"))
            #expect(error == .timedOut)
            #expect(chunks.isEmpty)
        }
    }

    @Test("the first token has its own, longer deadline", arguments: ProviderKind.allCases)
    func firstTokenMayTakeLongerThanTheGapBetweenTokens(kind: ProviderKind) async throws {
        // The first token comes after 8 s, twice the gap allowed between tokens (which is wide, for busy test
        // machines).
        try await withMock(.init(port: 0, tokens: 3, delayMilliseconds: 10, firstTokenMilliseconds: 8_000)) { mock in
            let timeouts = UpstreamTimeouts(firstToken: .seconds(60), betweenTokens: .seconds(4))
            let (chunks, error) = await Harness.collect(
                Harness.provider(kind, mock: mock, timeouts: timeouts),
                Harness.request(model: "mock-fast"))
            #expect(error == nil)
            #expect(
                chunks == MockReply.chunks(model: "mock-fast", tokens: 3).map(CompletionChunk.text)
                    + [.usage(promptTokens: Harness.promptTokens, completionTokens: 3)])
        }
    }

    @Test(
        "a malformed stream is reported as such, after the text that came",
        arguments: [
            (ProviderKind.openai, "undecodable chunk"), (.anthropic, "undecodable event"),
            (.gemini, "undecodable response"),
        ])
    func garbageIsMalformed(kind: ProviderKind, detail: String) async throws {
        try await withMock { mock in
            let (chunks, error) = await Harness.collect(
                Harness.provider(kind, mock: mock), Harness.request(model: "mock-garbage"))
            #expect(error == .malformedResponse(detail: detail))
            #expect(chunks == Harness.texts("mock-garbage", first: MockReply.tokensBeforeFault))
        }
    }

    @Test("a rejected key names the provider", arguments: ProviderKind.allCases)
    func rejectedKeyNamesTheProvider(kind: ProviderKind) async throws {
        try await withMock { mock in
            let (chunks, error) = await Harness.collect(
                Harness.provider(kind, mock: mock, key: "bad-key"), Harness.request(model: "mock-fast"))
            #expect(error == .rejectedKey(provider: kind.displayName))
            #expect(error?.reason.code == "provider_rejected_key")
            #expect(chunks.isEmpty)
        }
    }

    @Test("an unknown model is named", arguments: ProviderKind.allCases)
    func unknownModelIsNamed(kind: ProviderKind) async throws {
        try await withMock { mock in
            let (_, error) = await Harness.collect(
                Harness.provider(kind, mock: mock), Harness.request(model: "mock-missing"))
            #expect(error == .modelNotFound(model: "mock-missing"))
            #expect(error?.reason.message == "The provider does not know the model “mock-missing”.")
        }
    }

    @Test(
        "a server that refuses connections is connectFailed once the connect timeout passes: unreachable to the user, not retried by the reply (the client already tried until then), its fallback asked",
        arguments: ProviderKind.allCases)
    func closedPortIsUnreachable(kind: ProviderKind) async throws {
        // A refused connection ends as unreachable, not as a hang; the time bound is loose because the whole suite
        // runs in parallel on two cores.
        let timeouts = UpstreamTimeouts(connect: .milliseconds(300))
        try await Harness.withClient(timeouts) { client in
            let provider = kind.makeProvider(
                ProviderConnection(
                    name: kind.displayName, baseURL: "http://127.0.0.1:1", apiKey: "k",
                    client: client, timeouts: timeouts))
            let started = ContinuousClock.now
            let (_, error) = await Harness.collect(provider, Harness.request(model: "mock-fast"))
            #expect(error?.reason.code == "upstream_unreachable")
            #expect(
                error.map { if case .connectFailed = $0 { true } else { false } } == true,
                "\(String(describing: error))")
            #expect(error?.isRetryable == false && error?.allowsFallback == true)
            #expect(ContinuousClock.now - started < .seconds(30))
        }
    }

    @Test func theClientGetsOnlyTheConnectTimeout() {
        let timeout = UpstreamTimeouts(connect: .milliseconds(1_500)).clientTimeout
        #expect(timeout.connect == .milliseconds(1_500))
        #expect(timeout.read == nil)
        #expect(
            UpstreamTimeouts()
                == UpstreamTimeouts(connect: .seconds(10), firstToken: .seconds(120), betweenTokens: .seconds(60)))
    }

    @Test("cancelling mid-stream closes the upstream connection", arguments: ProviderKind.allCases)
    func cancellingClosesTheUpstreamConnection(kind: ProviderKind) async throws {
        // 600 tokens 100 ms apart: the mock is still sending for a minute, even when a loaded machine is slow to cancel
        // (with 50, the full suite on two slow cores once saw the stream complete first).
        let tokens = 600
        try await withMock(.init(port: 0, tokens: tokens)) { mock in
            let provider = Harness.provider(kind, mock: mock)
            let (texts, received) = AsyncStream.makeStream(of: Void.self)
            let streaming = Task {
                await Harness.collect(provider, Harness.request(model: "mock-slow")) { chunk in
                    if case .text = chunk { received.yield() }
                }
            }
            var iterator = texts.makeAsyncIterator()
            await iterator.next()
            await iterator.next()
            streaming.cancel()
            let (chunks, error) = await streaming.value
            #expect(error == .cancelled)
            #expect(chunks.count < tokens)
            let stats = try await Harness.waitForAbort(mock)
            #expect(stats["aborted"] as? Int == 1)
            #expect(stats["open"] as? Int == 0)
            #expect(stats["completed"] as? Int == 0)
        }
    }
}
