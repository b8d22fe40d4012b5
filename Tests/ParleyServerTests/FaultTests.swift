import Foundation
import MockUpstream
import NIOCore
import NIOPosix
import ParleyCore
import Testing

/// Upstream faults and hostile clients: every affected reply ends with a clear error and a saved partial.
@Suite("Faults")
struct FaultTests {
    /// Sends on a conversation with `model` and returns the events up to `done` and the stored reply.
    static func reply(_ server: TestServer, model: String) async throws -> (
        events: [ReceivedEvent], stored: [String: Any]
    ) {
        let api = try await GenerationTests.signedIn(server)
        let id = try await api.createConversation(model: model)
        let stream = try await api.events(id)
        #expect(try await api.send(id, "hello").status == 202)
        let events = try await stream.untilDone(timeout: .seconds(20))
        let messages = try await api.messages(id)
        return (events, messages.last ?? [:])
    }

    @Test("an upstream answering 500 ends with an error event, status error, and nothing left running")
    func upstreamRefuses() async throws {
        let (model, code) = ("mock-500", "provider_overloaded")
        try await withTestServer { server in
            let (events, stored) = try await Self.reply(server, model: model)
            let error = try #require(events.first { $0.name == "error" }?.json)
            #expect(error["code"] as? String == code)
            #expect((error["message"] as? String)?.isEmpty == false)
            #expect(events.done?.json["status"] as? String == "error")
            #expect(stored["status"] as? String == "error")
            #expect((stored["error"] as? [String: Any])?["code"] as? String == code)
            let stats = try await server.waitForMock { $0.open == 0 }
            #expect(stats.open == 0)
            #expect(try await server.gauge("parley_generations_running") == 0)
        }
    }

    @Test(
        "a 200 with an empty body (a real server's answer to a prompt too long) is upstream_empty, asked once, not retried, and billed nothing"
    )
    func emptyReply() async throws {
        try await withTestServer { server in
            let (events, stored) = try await Self.reply(server, model: "mock-empty")
            #expect(events.first { $0.name == "error" }?.json["code"] as? String == "upstream_empty")
            #expect(events.done?.json["status"] as? String == "error")
            #expect(try await server.mockStats().requests == 1)
            let usage = try #require(stored["usage"] as? [String: Any])
            #expect(usage["prompt_tokens"] as? Int == 0 && usage["completion_tokens"] as? Int == 0)
            #expect(usage["cost_usd"] as? Double == 0)
        }
    }

    @Test(
        "a reply whose server reports no usage is billed an estimate marked estimated; one that failed before any text is billed nothing"
    )
    func billingWithoutAReport() async throws {
        try await withTestServer(mockTokens: 5) { server in
            let (events, stored) = try await Self.reply(server, model: "mock-nousage")
            #expect(events.done?.json["status"] as? String == "complete")
            let estimated = try #require(stored["usage"] as? [String: Any])
            #expect(estimated["estimated"] as? Bool == true && (estimated["prompt_tokens"] as? Int ?? 0) > 0)
            let (_, failed) = try await Self.reply(server, model: "mock-500")
            let nothing = try #require(failed["usage"] as? [String: Any])
            #expect(nothing["prompt_tokens"] as? Int == 0 && nothing["completion_tokens"] as? Int == 0)
        }
    }

    @Test("a stream that joins after a failed reply ended gets its error, with the code, before its done")
    func lateStreamGetsTheError() async throws {
        try await withTestServer { server in
            let api = try await GenerationTests.signedIn(server)
            let id = try await api.createConversation(model: "mock-500")
            let sent = try await api.send(id, "hello")
            let replyID = try #require(try sent.json()["assistant_message_id"] as? Int)
            _ = try await api.lastMessage(of: id, within: .seconds(20)) { $0?["status"] as? String == "error" }
            // Resuming from the reply's first event, once the reply and its channel are gone.
            let events = try await api.events(id, lastEventID: "\(replyID)0000000").untilDone(timeout: .seconds(10))
            #expect(events.map(\.name) == ["error", "done"])
            #expect(events.first?.json["code"] as? String == "provider_overloaded")
            #expect(events.done?.json["status"] as? String == "error")
        }
    }

    @Test("a 500 is retried before the first token; a 429 with Retry-After succeeds on the retry")
    func retries() async throws {
        try await withTestServer(mockTokens: 5) { server in
            let (failed, _) = try await Self.reply(server, model: "mock-500")
            #expect(failed.done?.json["status"] as? String == "error")
            #expect(try await server.mockStats().requests == 3)
            let api = try await APIClient.signIn(server, email: "user@example.com")
            let id = try await api.createConversation(model: "mock-429")
            let stream = try await api.events(id)
            #expect(try await api.send(id, "hello").status == 202)
            let events = try await stream.untilDone(timeout: .seconds(20))
            #expect(events.done?.json["status"] as? String == "complete")
            #expect(events.text == MockReply.text(model: "mock-429", tokens: 5))
            #expect(try await server.mockStats().requests == 5)
        }
    }

    @Test("stop during the wait before a retry ends the reply at once as stopped, and nothing more is asked upstream")
    func stopWhileWaitingToRetry() async throws {
        try await withTestServer(
            mockTokens: 5,
            configure: { settings in
                settings.generation.retry = RetryPolicy(maxRetries: 2, baseDelay: .seconds(60), maxDelay: .seconds(60))
            }
        ) { server in
            let api = try await GenerationTests.signedIn(server)
            let id = try await api.createConversation(model: "mock-500")
            let stream = try await api.events(id)
            #expect(try await api.send(id, "hello").status == 202)
            // The first request failed; the reply now waits 30 to 60 s before its retry.
            try await server.waitForMock { $0.requests == 1 && $0.open == 0 }
            let stopped = ContinuousClock.now
            #expect(try await api.request(.POST, "/api/conversations/\(id)/stop").status == 204)
            let events = try await stream.untilDone(timeout: .seconds(10))
            #expect(ContinuousClock.now - stopped < .seconds(5))
            #expect(events.done?.json["status"] as? String == "stopped")
            #expect(try await api.messages(id).last?["status"] as? String == "stopped")
            #expect(try await server.gauge("parley_generations_running") == 0)
            // Real time: a request not made has no event; a retry made at the stop reaches the mock well within 300 ms.
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await server.mockStats().requests == 1)
        }
    }

    @Test("a model whose upstream keeps failing falls back to its configured fallback, priced as the fallback")
    func fallbackModel() async throws {
        let configPath = try makeTempDirectory() + "/parley.json"
        try await withTestServer(
            mockTokens: 5,
            configure: { settings in
                let base = settings.environment["OPENAI_BASE_URL"] ?? ""
                try? Data(
                    """
                    {"providers": [{"id": "mock", "kind": "openai", "base_url": "\(base)"}],
                     "models": [
                       {"id": "primary", "provider": "mock", "upstream_id": "mock-500", "fallback": "backup",
                        "price": {"input": 0, "output": 1000000}},
                       {"id": "backup", "provider": "mock", "upstream_id": "mock-fast", "price": {"input": 0, "output": 2000000}}
                     ]}
                    """.utf8
                ).write(to: URL(fileURLWithPath: configPath))
                settings.providerConfigPath = configPath
            }
        ) { server in
            let (events, stored) = try await Self.reply(server, model: "primary")
            #expect(events.done?.json["status"] as? String == "complete")
            #expect(events.text == MockReply.text(model: "mock-fast", tokens: 5))
            #expect(!events.contains { $0.name == "error" })
            // Three tries of the primary (the first and two retries), then one of the fallback.
            let stats = try await server.mockStats()
            #expect(stats.requests == 4)
            // Five completion tokens at the fallback's $2 per token.
            let usage = try #require(stored["usage"] as? [String: Any])
            #expect(usage["cost_usd"] as? Double == 10)
        }
    }

    @Test(
        "a provider whose port refuses connections fails a reply within the connect timeout, not once per retry, and its model's fallback answers at once"
    )
    func refusedProvider() async throws {
        let configPath = try makeTempDirectory() + "/parley.json"
        let closed = try UpstreamConnectProbe.closedPort()
        try await withTestServer(
            mockTokens: 5,
            configure: { settings in
                let base = settings.environment["OPENAI_BASE_URL"] ?? ""
                try? Data(
                    """
                    {"providers": [{"id": "mock", "kind": "openai", "base_url": "\(base)"},
                                   {"id": "down", "kind": "openai", "base_url": "http://127.0.0.1:\(closed)/v1"}],
                     "models": [
                       {"id": "alone", "provider": "down", "upstream_id": "m"},
                       {"id": "primary", "provider": "down", "upstream_id": "m", "fallback": "backup"},
                       {"id": "backup", "provider": "mock", "upstream_id": "mock-fast"}
                     ]}
                    """.utf8
                ).write(to: URL(fileURLWithPath: configPath))
                settings.providerConfigPath = configPath
                settings.upstreamConnectTimeout = .seconds(3)
                // The models are configured: the start need not wait for the down provider's list.
                settings.modelDiscoveryWait = .milliseconds(100)
            }
        ) { server in
            // Timed from the send: signing in first (a password hash) can take seconds on a loaded machine.
            let api = try await GenerationTests.signedIn(server)
            let id = try await api.createConversation(model: "alone")
            let stream = try await api.events(id)
            let started = ContinuousClock.now
            #expect(try await api.send(id, "hello").status == 202)
            let failed = try await stream.untilDone(timeout: .seconds(20))
            // Three tries (the first and two retries) would take three connect timeouts, 9 s.
            let error = failed.first { $0.name == "error" }?.json
            let took = started.duration(to: .now)
            // Not retried: the model's name is this test's alone, so its counter is too.
            var browser = server.browser()
            let metrics = try await browser.get("/metrics").body
            #expect(!metrics.contains(#"parley_upstream_retries_total{model="alone"}"#), "retried after \(took)")
            #expect(took < .seconds(8), "\(error ?? [:])")
            #expect(error?["code"] as? String == "upstream_unreachable")
            #expect((error?["message"] as? String)?.contains("no connection to it could be opened") == true)
            let (events, _) = try await Self.reply(server, model: "primary")
            #expect(events.done?.json["status"] as? String == "complete")
            #expect(events.text == MockReply.text(model: "mock-fast", tokens: 5))
        }
    }

    @Test(
        "a prompt the provider refuses as too long is asked again once with about half the conversation; a single message too long is refused with context_too_long"
    )
    func contextRefusedAsTooLong() async throws {
        try await withTestServer(mockTokens: 5) { server in
            let api = try await GenerationTests.signedIn(server)
            let id = try await api.createConversation(model: "mock-window")
            let question = String(repeating: "many words here ", count: 20)  // 320 characters, 80 mock tokens
            for index in 0..<3 {
                let before = try await server.mockStats().requests
                let stream = try await api.events(id)
                #expect(try await api.send(id, question + "\(index)").status == 202)
                let events = try await stream.untilDone(timeout: .seconds(20))
                #expect(events.done?.json["status"] as? String == "complete", "send \(index)")
                // The third send's whole conversation is over the mock's 200 tokens: refused, then asked with less.
                #expect(try await server.mockStats().requests - before == (index == 2 ? 2 : 1), "send \(index)")
            }
            let alone = try await api.createConversation(model: "mock-window")
            let stream = try await api.events(alone)
            #expect(try await api.send(alone, String(repeating: "word ", count: 200)).status == 202)
            let events = try await stream.untilDone(timeout: .seconds(20))
            #expect(events.first { $0.name == "error" }?.json["code"] as? String == "context_too_long")
        }
    }

    @Test(
        "a reply cut at the model's output limit is saved truncated, shown so, and the page offers Continue, which asks the model to go on"
    )
    func truncatedReply() async throws {
        try await withTestServer(mockTokens: 5) { server in
            let api = try await GenerationTests.signedIn(server)
            let id = try await api.createConversation(model: "mock-length")
            let stream = try await api.events(id)
            #expect(try await api.send(id, "hello").status == 202)
            let events = try await stream.untilDone(timeout: .seconds(20))
            let stored = try await api.messages(id).last ?? [:]
            #expect(events.done?.json["status"] as? String == "truncated")
            #expect(stored["status"] as? String == "truncated")
            #expect(stored["content"] as? String == MockReply.text(model: "mock-length", tokens: 5))
            var browser = server.browser()
            _ = try await browser.signIn("user@example.com")
            let page = try await browser.get("/c/\(id)").body
            #expect(page.contains(#"<span class="status">truncated</span>"#))
            #expect(page.contains(#"id="continue-form">"#))
            let continued = try await browser.post(
                "/c/\(id)/messages", form: ["content": "Continue exactly where you stopped."])
            #expect(continued.status == 303)
        }
    }

    @Test(
        "a reset, stalled or garbled stream ends with a clear error and keeps the partial text",
        arguments: [
            ("mock-reset", "upstream_unreachable"), ("mock-stall", "upstream_timeout"),
            ("mock-garbage", "upstream_malformed"),
        ])
    func brokenStreams(model: String, code: String) async throws {
        // Only the stall needs the short silence timeout; on a loaded machine it could also cut a reset short.
        try await withTestServer(configure: { if model == "mock-stall" { $0.upstreamIdleTimeout = stallTimeout } }) {
            server in
            let (events, stored) = try await Self.reply(server, model: model)
            #expect(events.first { $0.name == "error" }?.json["code"] as? String == code)
            #expect(events.done?.json["status"] as? String == "error")
            let partial = try #require(stored["content"] as? String)
            #expect(!partial.isEmpty)
            #expect(partial == events.text)
            #expect(MockReply.text(model: model, tokens: 30).hasPrefix(partial))
            #expect(stored["status"] as? String == "error")
            try await server.waitForMock { $0.open == 0 }
            #expect(try await server.gauge("parley_generations_running") == 0)
        }
    }

    @Test("a subscriber that never reads does not slow or block other streams")
    func stuckSubscriber() async throws {
        try await withTestServer { server in
            let api = try await GenerationTests.signedIn(server)
            let id = try await api.createConversation(model: "mock-long")
            let token = try #require(api.token)
            // A raw socket that asks for the stream and never reads a byte.
            let channel = try await RawEventStream.open(port: server.port, conversation: id, token: token, reads: false)
            defer { channel.close(promise: nil) }
            let reader = try await api.events(id)
            #expect(try await api.send(id, "a long one please").status == 202)
            let events = try await reader.untilDone(timeout: .seconds(20))
            #expect(events.done?.json["status"] as? String == "complete")
            #expect(events.text == MockReply.text(model: "mock-long", tokens: 0))
            #expect(try await api.messages(id).last?["status"] as? String == "complete")
        }
    }
}
