import Testing

@testable import ParleyCore

/// Parley's part of a reply's first token: what `parley_added_first_token_seconds` records.
@Suite struct AddedFirstTokenTimeTests {
    /// A reply started by a request received at `receivedAt`.
    static func generation(receivedAt: ContinuousClock.Instant = .now) -> ReplyRun {
        let job = GenerationJob(
            conversationID: 1, userID: 1, assistantMessageID: 1, systemPrompt: "",
            model: ModelInfo(id: "model", providerID: "provider"))
        return ReplyRun(job: job, receivedAt: receivedAt)
    }

    /// Puts the reply's `start` event (sequence 1) and its first text's `token` event (sequence 2) in a log.
    static func publishFirstText(of reply: ReplyRun) {
        let hub = ConversationHub()
        reply.publish(.start(messageID: 1, model: "model"), to: hub)
        reply.publishTokens(to: hub, now: .zero, interval: .zero, force: true)
    }

    @Test("timed once, when a stream first writes the first text's token event, leaving out the wait for the provider")
    func timedOnceWithoutTheProvidersWait() async throws {
        let received = ContinuousClock.now
        let generation = Self.generation(receivedAt: received)
        generation.markRequestSent()
        let requestLeft = ContinuousClock.now
        // Real time: ReplyRun reads ContinuousClock.now itself; the provider thinks 200 ms, far beyond timing noise.
        try await Task.sleep(for: .milliseconds(200))
        let beforeText = ContinuousClock.now
        #expect(generation.receive("Hi"))
        #expect(generation.addedFirstTokenTime(wroteUpTo: 5) == nil)  // the first text's event is not in the log yet
        Self.publishFirstText(of: generation)
        #expect(generation.addedFirstTokenTime(wroteUpTo: 1) == nil)  // only the `start` event was written
        let added = try #require(generation.addedFirstTokenTime(wroteUpTo: 2))
        // At most the time up to the request leaving plus the time from the text to now: the 200 ms are not in it.
        #expect(added <= received.duration(to: requestLeft) + beforeText.duration(to: .now))
        #expect(generation.addedFirstTokenTime(wroteUpTo: 3) == nil)  // a second stream writing it counts no more
    }

    @Test(
        "when the first text comes before the request is seen on its way, the time from the request to the write counts once"
    )
    func countsTheTimeBeforeTheRequestLeftOnce() async throws {
        let received = ContinuousClock.now - .milliseconds(400)
        let generation = Self.generation(receivedAt: received)
        #expect(generation.receive("Hi"))
        // Real time, as above: the request is seen sent 200 ms after the text, so a gap counted twice would show.
        try await Task.sleep(for: .milliseconds(200))
        generation.markRequestSent()
        Self.publishFirstText(of: generation)
        let beforeWrite = ContinuousClock.now
        let added = try #require(generation.addedFirstTokenTime(wroteUpTo: 2))
        #expect(added >= received.duration(to: beforeWrite))
        // Counting the 200 ms between the text and the request seen on its way twice would exceed this.
        #expect(added <= received.duration(to: .now))
    }
}
