import Foundation
import MockUpstream
import ParleyCore
import Testing

/// Upstream faults mixed into a load of concurrent replies: each fault stays with its own reply.
@Suite("Reliability: upstream faults under load")
struct ReliabilityFaultLoadTests {
    /// How a reply on each mock model must end: its `done` status and the `error` code, if any.
    static let outcomes: [(model: String, status: String, error: String?)] = [
        ("mock-reset", "error", "upstream_unreachable"), ("mock-stall", "error", "upstream_timeout"),
        ("mock-garbage", "error", "upstream_malformed"), ("mock-500", "error", "provider_overloaded"),
        ("mock-429", "complete", nil), ("mock-slow", "complete", nil),
    ]
    /// Replies per faulty model; the rest of the 50 are healthy `mock-fast` ones.
    static let perFault = 5
    static let total = 50
    static let tokens = 30

    @Test(
        "50 concurrent replies, 30 of them hitting reset, stall, garbage, 500, 429 or slowness: the faulty end with error and a saved partial, the others complete untouched, nothing is left running"
    )
    func faultsUnderLoad() async throws {
        try await withTestServer(
            mockTokens: Self.tokens, mockDelayMilliseconds: 20,
            configure: { settings in
                settings.sendRateLimit = nil
                settings.upstreamIdleTimeout = stallTimeout
                // mock-429 refuses every other request it gets, across concurrent replies: give each enough retries.
                settings.generation.retry = RetryPolicy(
                    maxRetries: 6, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50))
            }
        ) { server in
            let api = try await GenerationTests.signedIn(server)
            let models =
                Self.outcomes.flatMap { Array(repeating: $0.model, count: Self.perFault) }
                + Array(repeating: "mock-fast", count: Self.total - Self.outcomes.count * Self.perFault)
            var conversations: [Int64] = []
            for model in models { conversations.append(try await api.createConversation(model: model)) }
            let results = try await withThrowingTaskGroup(of: (Int, [ReceivedEvent]).self) { group in
                for (index, id) in conversations.enumerated() {
                    group.addTask {
                        let reader = try await api.sendStreaming(id, "question \(index)")
                        return (index, try await reader.untilDone(timeout: .seconds(60)))
                    }
                }
                var results: [Int: [ReceivedEvent]] = [:]
                for try await (index, events) in group { results[index] = events }
                return results
            }
            for (index, model) in models.enumerated() {
                let events = try #require(results[index])
                let expected = Self.outcomes.first { $0.model == model } ?? ("mock-fast", "complete", nil)
                let stored = try #require(try await api.messages(conversations[index]).last)
                #expect(events.done?.json["status"] as? String == expected.status, "\(model) reply \(index)")
                #expect(stored["status"] as? String == expected.status, "\(model) reply \(index)")
                #expect(
                    events.first { $0.name == "error" }?.json["code"] as? String == expected.error,
                    "\(model) reply \(index)")
                let whole = MockReply.text(model: model, tokens: Self.tokens)
                #expect(
                    stored["content"] as? String == events.text,
                    "\(model) reply \(index): saved text differs from streamed")
                if expected.status == "complete" {
                    #expect(events.text == whole, "\(model) reply \(index) was altered")
                } else {
                    #expect(whole.hasPrefix(events.text))
                    #expect(model == "mock-500" || !events.text.isEmpty, "\(model) reply \(index) kept no partial")
                }
            }
            try await server.waitForMock(timeout: .seconds(10)) { $0.open == 0 }
            #expect(try await server.mockStats().open == 0)
            #expect(try await server.gauge("parley_generations_running") == 0)
            #expect(try await DatabaseHealth.read(server.dataDirectory) == .healthy)
        }
    }
}
