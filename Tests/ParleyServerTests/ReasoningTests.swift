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

    /// Runs `body` against a server whose `models` are served by the mock over each wire format; with `clock`, the
    /// engine's time is the test's.
    static func withReasoningServer(
        mockDelayMilliseconds: Int = 0, clock: TestClock? = nil, _ body: (TestServer) async throws -> Void
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
                if let clock { settings.generation.clock = EngineClock(clock) }
                settings.signup = .open  // a link's owner, visitors and intruders
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
            let reasoningTime = try #require(reply["reasoning_ms"] as? Int)
            let question = try #require((document.first?["messages"] as? [[String: Any]])?.first)
            #expect(question["reasoning"] == nil && question["reasoning_ms"] == nil)

            let markdown = try await browser.get("/c/\(id)/export.md").body
            #expect(markdown.contains(Self.answer))
            #expect(!markdown.contains("step by step"))
            let page = try await browser.get("/c/\(id)").body
            #expect(page.contains("export.md?reasoning=1"))
            #expect(page.contains("<details class=\"reasoning\"><summary>Thought for "))
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
            #expect(copied["reasoning_ms"] as? Int == reasoningTime)

            // A file without the time (written before it was kept) imports without it; a negative one is refused whole.
            let untimed = json.body.replacing(/"reasoning_ms":\d+,/, with: "")
            #expect(untimed != json.body)
            let older = try await api.post("/settings/import", body: untimed)
            let olderCopy = try #require((try older.json()["conversation_ids"] as? [Int])?.first)
            let olderReply = try #require(try await api.messages(Int64(olderCopy)).last)
            #expect(olderReply["reasoning"] as? String == Self.reasoning && olderReply["reasoning_ms"] == nil)
            let conversations = try await api.request(.GET, "/api/conversations").body
            let negative = json.body.replacing(/"reasoning_ms":\d+/, with: #""reasoning_ms":-5"#)
            let refused = try await api.post("/settings/import", body: negative)
            #expect(refused.status == 422)
            #expect(refused.body.contains("reasoning time is negative"))
            #expect(try await api.request(.GET, "/api/conversations").body == conversations)
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

    @Test(
        "the reasoning's time runs on the engine's clock from its first text to the answer's: stored, sent with done, and shown as Thought for N s"
    )
    func reasoningTimeIsStoredAndShown() async throws {
        let clock = TestClock()
        // 100 ms a token: the answer's first token comes 2 s after the reasoning's, while the engine's clock stands
        // still but for the test's one move.
        try await Self.withReasoningServer(mockDelayMilliseconds: 100, clock: clock) { server in
            let account = try await server.signUp("user@example.com")
            var browser = account.browser
            let api = account.api
            let id = try await api.createConversation(model: "think-openai")
            let reader = try await api.events(id)
            #expect(try await api.send(id, "time me").status == 202)
            let first = try await reader.collect { $0.name == "reasoning" || $0.name == "token" }
            #expect(first.last?.name == "reasoning")
            clock.advance(by: .milliseconds(4_600))
            let rest = try await reader.untilDone()
            #expect(rest.text == Self.answer)
            #expect(rest.done?.json["reasoning_ms"] as? Int == 4_600)
            let messages = try await api.messages(id)
            #expect(messages.last?["reasoning_ms"] as? Int == 4_600)
            #expect(messages.first?.keys.contains("reasoning_ms") == false)
            let page = try await browser.get("/c/\(id)").body
            #expect(page.contains(#"<details class="reasoning"><summary>Thought for 5 s</summary>"#))
        }
    }

    @Test("a reply stored without its reasoning's time (before it was kept) says Reasoning; a short one at least 1 s")
    func unknownAndShortReasoningTimes() async throws {
        try await Self.withReasoningServer { server in
            let account = try await server.signUp("user@example.com")
            var browser = account.browser
            let short = try await account.api.createConversation(model: "think-openai")
            try await account.api.sendAndWait(short, "Hello")
            let old = try await account.api.createConversation(model: "think-openai")
            try await account.api.sendAndWait(old, "Hello")
            // Set before either page is shown (the server keeps a finished message's HTML).
            try await ShareTests.execute(
                server, "UPDATE messages SET reasoning_ms = 120 WHERE reasoning IS NOT NULL AND conversation_id = ?",
                [short])
            try await ShareTests.execute(
                server, "UPDATE messages SET reasoning_ms = NULL WHERE conversation_id = ?", [old])
            #expect(try await browser.get("/c/\(short)").body.contains("<summary>Thought for 1 s</summary>"))
            let page = try await browser.get("/c/\(old)").body
            #expect(page.contains(#"<details class="reasoning"><summary>Reasoning</summary>"#))
            #expect(!page.contains("Thought for"))
        }
    }

    /// The reasoning's words as a page shows them (the mock's reasoning holds a `<`, escaped there).
    static let reasoningWords = "the user greets the mock"

    @Test(
        "a share leaves the reasoning out unless its owner includes it: the page, the snapshot, updates and forks"
    )
    func sharesIncludeTheReasoningOnlyWhenChosen() async throws {
        try await Self.withReasoningServer { server in
            let account = try await server.signUp("owner@example.com")
            var owner = account.browser
            let id = try await account.api.createConversation(model: "think-openai")
            try await account.api.sendAndWait(id, "Hello")
            try await ShareTests.execute(server, "UPDATE messages SET reasoning_ms = 3000 WHERE reasoning IS NOT NULL")

            let without = try await ShareTests.share(&owner, id)
            let plain = try await ShareTests.fetch(server, "/s/\(without)")
            #expect(plain.status == 200 && plain.body.contains(Self.answer.prefix(6)))
            #expect(!plain.body.contains(Self.reasoningWords) && !plain.body.contains("class=\"reasoning\""))
            let sharedReasoning = "SELECT COUNT(*) FROM share_messages WHERE reasoning IS NOT NULL"
            #expect(try await ShareTests.count(server, sharedReasoning) == 0)

            let response = try await owner.post(
                "/c/\(id)/share", form: ["author": "anonymous", "expires": "never", "include_reasoning": "true"])
            #expect(response.status == 303)
            let with = String(try #require(response.location).dropFirst("/shares?created=".count))
            let shown = try await ShareTests.fetch(server, "/s/\(with)")
            #expect(shown.status == 200)
            #expect(shown.body.contains(#"<details class="reasoning"><summary>Thought for 3 s</summary>"#))
            #expect(shown.body.contains(Self.reasoningWords))
            #expect(!shown.body.contains("<details class=\"reasoning\" open"))
            #expect(try await owner.get("/shares").body.contains("with reasoning"))
            // The first link still shows none.
            #expect(!(try await ShareTests.fetch(server, "/s/\(without)").body.contains(Self.reasoningWords)))

            // A visitor's copy of a link without the reasoning has none either; one of a link with it keeps it.
            let visitor = try await server.signUp("visitor@example.com")
            var visiting = visitor.browser
            let forked = try await visiting.post("/s/\(without)/fork")
            let copy = try #require(forked.location)
            #expect(!(try await visiting.get(copy).body.contains(Self.reasoningWords)))
            let forkedWith = try #require(try await visiting.post("/s/\(with)/fork").location)
            #expect(try await visiting.get(forkedWith).body.contains(Self.reasoningWords))

            // Updating the links without the box takes the reasoning out of both.
            let updated = try await owner.post("/c/\(id)/share", form: ["update": "1"])
            #expect(updated.status == 303 && updated.location == "/shares?updated=2")
            for token in [without, with] {
                #expect(!(try await ShareTests.fetch(server, "/s/\(token)").body.contains(Self.reasoningWords)))
            }
            #expect(try await ShareTests.count(server, "SELECT COUNT(*) FROM shares WHERE include_reasoning") == 0)
        }
    }

    @Test(
        "the JSON API shares with include_reasoning true; anything but a boolean is a 400 that stores nothing; another's conversation 404"
    )
    func shareAPIIncludeReasoning() async throws {
        try await Self.withReasoningServer { server in
            let account = try await server.signUp("owner@example.com")
            let api = account.api
            let id = try await api.createConversation(model: "think-openai")
            try await api.sendAndWait(id, "Hello")

            let created = try await api.request(.POST, "/c/\(id)/share", json: ["include_reasoning": true])
            #expect(created.status == 201)
            let url = try #require(try created.json()["url"] as? String)
            #expect(try await ShareTests.fetch(server, url).body.contains(Self.reasoningWords))
            let off = try await api.request(.POST, "/c/\(id)/share", json: ["include_reasoning": false])
            let offURL = try #require(try off.json()["url"] as? String)
            #expect(!(try await ShareTests.fetch(server, offURL).body.contains(Self.reasoningWords)))
            let unsaid = try await api.request(.POST, "/c/\(id)/share", json: ["author": "name"])
            let unsaidURL = try #require(try unsaid.json()["url"] as? String)
            #expect(!(try await ShareTests.fetch(server, unsaidURL).body.contains(Self.reasoningWords)))
            #expect(try await ShareTests.count(server, "SELECT COUNT(*) FROM shares") == 3)

            let badValues: [Any] = ["true", "yes", 1, 0, NSNull(), ["x"], ["on": true]]
            for value in badValues {
                let refused = try await api.request(.POST, "/c/\(id)/share", json: ["include_reasoning": value])
                #expect(refused.status == 400, "\(value): \(refused.status)")
                let error = try refused.json()["error"] as? [String: Any]
                #expect(
                    (error?["message"] as? String)?.contains("include_reasoning") == true, "\(value): \(refused.body)")
            }
            var owner = account.browser
            for value in ["1", "on", "yes", ""] {
                let refused = try await owner.post("/c/\(id)/share", form: ["include_reasoning": value])
                #expect(refused.status == 400, "form \(value): \(refused.status)")
            }
            #expect(try await ShareTests.count(server, "SELECT COUNT(*) FROM shares") == 3)

            let intruder = try await server.signUp("intruder@example.com")
            let refused = try await intruder.api.request(.POST, "/c/\(id)/share", json: ["include_reasoning": true])
            #expect(refused.status == 404)
            var intruding = intruder.browser
            #expect(try await intruding.post("/c/\(id)/share", form: ["include_reasoning": "true"]).status == 404)
            #expect(try await ShareTests.count(server, "SELECT COUNT(*) FROM shares") == 3)
        }
    }
}
