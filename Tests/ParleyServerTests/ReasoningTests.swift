import Foundation
import MockUpstream
import ParleyCore
import ParleyMarkdown
import Testing

/// A reasoning model's reply through a live server and the mock upstream, in every wire format: `reasoning` events
/// before the answer's, the reasoning stored apart and never sent back, its tokens priced as output and shown to the
/// admin, in the JSON export and import but not the Markdown export.
@Suite("Reasoning")
struct ReasoningTests {
    /// The mock's answer length.
    static let tokens = 6
    /// The reasoning tokens `mock-think` streams.
    static let reasoningTokens = 20
    /// The reasoning both reasoning mocks show.
    static let reasoning = MockReply.reasoning(model: "mock-think")
    /// The answer both show.
    static let answer = MockReply.text(model: "mock-fast", tokens: tokens)

    /// A model of each wire format reasoning its own way, and one with `<think>` in its content; $1 per million input
    /// tokens and $2 per million output tokens.
    static let models = ["think-openai", "think-anthropic", "think-gemini", "think-tag"]

    /// Runs `body` against a server whose `models` are served by the mock over each wire format.
    static func withReasoningServer(
        mockDelayMilliseconds: Int = 0, _ body: (TestServer) async throws -> Void
    ) async throws {
        let config = try makeTempDirectory() + "/parley.json"
        try await withTestServer(
            mockTokens: tokens, mockDelayMilliseconds: mockDelayMilliseconds,
            configure: { settings in
                let base = (settings.environment["OPENAI_BASE_URL"] ?? "").replacingOccurrences(of: "/v1", with: "")
                settings.environment["MOCK_KEY"] = "test-key"
                let price = #""price": {"input": 1, "output": 2}"#
                try Data(
                    """
                    {"providers": [{"id": "claude", "kind": "anthropic", "base_url": "\(base)", "api_key_env": "MOCK_KEY"},
                                   {"id": "gem", "kind": "gemini", "base_url": "\(base)", "api_key_env": "MOCK_KEY"}],
                     "models": [
                       {"id": "think-openai", "provider": "openai", "upstream_id": "mock-think", \(price)},
                       {"id": "think-anthropic", "provider": "claude", "upstream_id": "mock-think", \(price)},
                       {"id": "think-gemini", "provider": "gem", "upstream_id": "mock-think", \(price)},
                       {"id": "think-tag", "provider": "openai", "upstream_id": "mock-think-tag", \(price)},
                       {"id": "think-first-token", "provider": "openai", "upstream_id": "mock-think"}
                     ]}
                    """.utf8
                ).write(to: URL(fileURLWithPath: config))
                settings.providerConfigPath = config
            }, body)
    }

    /// The reasoning tokens a model's reply is stored with: the vendor's count where it gives one, else Parley's
    /// estimate of the reasoning text (Anthropic counts thinking only inside its output tokens; a `<think>` in the
    /// content is counted by no one).
    static func storedReasoningTokens(_ model: String) -> Int {
        ["think-openai", "think-gemini"].contains(model)
            ? reasoningTokens : ContextWindow.estimatedTokens(reasoning)
    }

    /// The completion tokens the mock reports for a model's reply: the reasoning's included.
    static func completionTokens(_ model: String) -> Int {
        model == "think-tag"
            ? MockReply.chunks(model: "mock-think-tag", tokens: tokens).count : tokens + reasoningTokens
    }

    @Test(
        "the reasoning streams as reasoning events before the answer's tokens, is stored apart, and its tokens are output, priced as such",
        arguments: models)
    func reasoningThenAnswer(model: String) async throws {
        try await Self.withReasoningServer { server in
            let api = try await GenerationTests.signedIn(server)
            let id = try await api.createConversation(model: model)
            let stream = try await api.request(
                .POST, "/api/conversations/\(id)/messages", json: ["content": "Hello"],
                headers: [("Accept", "text/event-stream")])
            var parser = SSEParserForTests()
            let events = parser.events(stream.body)
            let reasoning = events.filter { $0.name == "reasoning" }
            #expect(!reasoning.isEmpty)
            #expect(reasoning.map { $0.json["text"] as? String ?? "" }.joined() == Self.reasoning)
            let lastReasoning = try #require(events.lastIndex { $0.name == "reasoning" })
            let firstToken = try #require(events.firstIndex { $0.name == "token" })
            #expect(lastReasoning < firstToken)
            #expect(events.text == Self.answer)
            let done = try #require(events.done?.json)
            #expect(done["status"] as? String == "complete")
            #expect(done["html"] as? String == MarkdownRenderer.html(Self.answer))

            let stored = try #require(try await api.messages(id).last)
            #expect(stored["content"] as? String == Self.answer)
            #expect(stored["reasoning"] as? String == Self.reasoning)
            let usage = try #require(stored["usage"] as? [String: Any])
            let completion = Self.completionTokens(model)
            #expect(usage["completion_tokens"] as? Int == completion)
            #expect(usage["reasoning_tokens"] as? Int == Self.storedReasoningTokens(model))
            #expect(usage["estimated"] as? Bool == false)
            // $1 a million prompt tokens and $2 a million completion tokens, the reasoning's among them.
            let prompt = try #require(usage["prompt_tokens"] as? Int)
            #expect(events.done?.costMicros == Int64(prompt + 2 * completion))
            #expect(try await api.messages(id).first?["reasoning"] == nil)
        }
    }

    @Test("a later turn's context holds the earlier answer but never its reasoning", arguments: models)
    func reasoningIsNotSentBack(model: String) async throws {
        try await Self.withReasoningServer { server in
            let api = try await GenerationTests.signedIn(server)
            let id = try await api.createConversation(model: model)
            try await api.sendAndWait(id, "First question")
            try await api.sendAndWait(id, "Second question")
            let sent = try #require(try await server.mockLastRequest())
            #expect(sent.contains("Second question") && sent.contains(Self.answer))
            #expect(!sent.contains("step by step") && !sent.contains("think>"))
        }
    }

    @Test(
        "the JSON export carries the reasoning and its tokens, an import keeps them; Markdown only when asked"
    )
    func exportsAndImport() async throws {
        try await Self.withReasoningServer { server in
            let account = try await server.signUp("user@example.com")
            var browser = account.browser
            let api = account.api
            let id = try await api.createConversation(model: "think-openai")
            try await api.sendAndWait(id, "Hello")
            let json = try await browser.get("/c/\(id)/export.json")
            let document = try #require(try json.json()["conversations"] as? [[String: Any]])
            let reply = try #require((document.first?["messages"] as? [[String: Any]])?.last)
            #expect(reply["reasoning"] as? String == Self.reasoning)
            #expect((reply["usage"] as? [String: Any])?["reasoning_tokens"] as? Int == Self.reasoningTokens)
            let question = try #require((document.first?["messages"] as? [[String: Any]])?.first)
            #expect(question["reasoning"] == nil)

            let markdown = try await browser.get("/c/\(id)/export.md").body
            #expect(markdown.contains(Self.answer))
            #expect(!markdown.contains("step by step"))
            let page = try await browser.get("/c/\(id)").body
            #expect(page.contains("export.md?reasoning=1"))
            #expect(page.contains("<details class=\"reasoning\"><summary>Reasoning</summary>"))
            let withReasoning = try await browser.get("/c/\(id)/export.md?reasoning=1").body
            #expect(
                withReasoning.contains("<details><summary>Reasoning</summary>\n\n" + Self.reasoning + "\n\n</details>"))
            #expect(withReasoning.contains(Self.answer))
            #expect(try await browser.get("/c/\(id)/export.md?reasoning=x=y&reasoning=1").status == 400)

            let imported = try await api.post("/settings/import", body: json.body)
            #expect(imported.status == 201)
            let copy = try #require((try imported.json()["conversation_ids"] as? [Int])?.first)
            let copied = try #require(try await api.messages(Int64(copy)).last)
            #expect(copied["reasoning"] as? String == Self.reasoning)
            #expect((copied["usage"] as? [String: Any])?["reasoning_tokens"] as? Int == Self.reasoningTokens)
        }
    }

    @Test("the admin dashboard shows the reasoning tokens, overall and by model")
    func dashboardShowsReasoningTokens() async throws {
        try await Self.withReasoningServer { server in
            let account = try await server.signUp("admin@example.com")
            var browser = account.browser
            let api = account.api
            for model in ["think-openai", "think-gemini"] {
                try await api.sendAndWait(try await api.createConversation(model: model), "Hello")
            }
            let page = try await browser.get("/admin")
            #expect(page.status == 200)
            #expect(page.body.contains("<dt>Reasoning tokens (in output)</dt><dd>\(2 * Self.reasoningTokens)</dd>"))
            #expect(page.body.contains(#"<td class="num">\#(Self.reasoningTokens)</td>"#))
        }
    }

    @Test(
        "a reply's first token, as a reader sees it and as parley_added_first_token_seconds counts it, is its first reasoning"
    )
    func firstTokenIsTheFirstReasoning() async throws {
        // 100 ms a token: the answer's first token comes 2 s after the reasoning's.
        try await Self.withReasoningServer(mockDelayMilliseconds: 100) { server in
            let api = try await GenerationTests.signedIn(server)
            let id = try await api.createConversation(model: "think-first-token")
            let reader = try await api.events(id)
            // Other suites share this process's registry, so the test looks at what its own reply added.
            let before = try await api.request(.GET, "/metrics").body
            #expect(try await api.send(id, "time me").status == 202)
            let first = try await reader.collect { $0.name == "reasoning" || $0.name == "token" }
            #expect(first.last?.name == "reasoning")
            let series = #"model="think-first-token""#
            // Recorded once the stream wrote the event, with no event to await: polled, 10 s at most.
            var added = (time: 0.0, parleys: 0.0)
            _ = try await poll(every: .milliseconds(10)) {
                let after = try await api.request(.GET, "/metrics").body
                added = (
                    OperationsTests.added(
                        "parley_time_to_first_token_seconds_count", [series], before: before, after: after),
                    OperationsTests.added(
                        "parley_added_first_token_seconds_count", [series], before: before, after: after)
                )
                return added.parleys == 1
            }
            #expect(added.time == 1 && added.parleys == 1)
            #expect(!reader.drain().contains { $0.name == "token" })
            let rest = try await reader.untilDone()
            #expect(rest.text == Self.answer)
        }
    }
}
