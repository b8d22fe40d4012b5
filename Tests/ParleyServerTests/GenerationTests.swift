import Foundation
import MockUpstream
import ParleyCore
import ParleyMarkdown
import TestDatabases
import Testing

/// The generation engine over a live server and a real mock upstream: streaming, stop, resume, idempotency.
@Suite("Generation")
struct GenerationTests {
    /// Signs up the first user and returns an API client.
    static func signedIn(_ server: TestServer, email: String = "user@example.com") async throws -> APIClient {
        var browser = server.browser()
        _ = try await browser.signUp(email)
        return try await APIClient.signIn(server, email: email)
    }

    @Test(
        "a reply streams start, tokens and one done; the text equals the upstream's and is saved with usage",
        arguments: TestDatabase.allCases)
    func streamsAReply(database: TestDatabase) async throws {
        try await withTestServer(mockTokens: 45, database: database) { server in
            let api = try await Self.signedIn(server)
            let id = try await api.createConversation()
            let stream = try await api.request(
                .POST, "/api/conversations/\(id)/messages", json: ["content": "Hello"],
                headers: [("Accept", "text/event-stream")])
            // With Accept: text/event-stream the response is the stream itself, ending after done.
            #expect(stream.status == 200)
            #expect(stream.headers.first(name: "content-type")?.hasPrefix("text/event-stream") == true)
            var parser = SSEParserForTests()
            let events = parser.events(stream.body)
            #expect(events.first?.name == "start")
            #expect(events.filter { $0.name == "done" }.count == 1)
            #expect(events.last?.name == "done")
            let expected = MockReply.text(model: "mock-fast", tokens: 45)
            #expect(events.text == expected)
            #expect(events.streamedHTML == MarkdownRenderer.html(expected))
            let done = try #require(events.done?.json)
            #expect(done["status"] as? String == "complete")
            #expect(done["html"] as? String == MarkdownRenderer.html(expected))
            let usage = try #require(done["usage"] as? [String: Any])
            #expect(usage["completion_tokens"] as? Int == 45)
            #expect(usage["estimated"] as? Bool == false)
            let ids = events.compactMap { $0.id.flatMap(Int64.init) }
            #expect(ids == ids.sorted() && Set(ids).count == ids.count)

            let messages = try await api.messages(id)
            #expect(messages.count == 2)
            #expect(messages[1]["content"] as? String == expected)
            #expect(messages[1]["status"] as? String == "complete")
            #expect((messages[1]["usage"] as? [String: Any])?["completion_tokens"] as? Int == 45)
            let stats = try await server.mockStats()
            #expect(stats.completed == 1)
        }
    }

    @Test(
        "the first token goes out alone at once; later ones are coalesced into fewer events",
        arguments: TestDatabase.allCases)
    func laterTokensAreCoalesced(database: TestDatabase) async throws {
        // Real time, end to end through a real stream: how many events a loaded machine's pace yields varies, so only
        // the upper bound is asserted here; EngineClockTests pins the timing itself on a test clock.
        try await withTestServer(
            mockTokens: 90, mockDelayMilliseconds: 10, database: database,
            configure: { $0.generation.coalesceInterval = .milliseconds(100) }
        ) { server in
            let api = try await Self.signedIn(server)
            let id = try await api.createConversation()
            let stream = try await api.request(
                .POST, "/api/conversations/\(id)/messages", json: ["content": "Hello"],
                headers: [("Accept", "text/event-stream")])
            var parser = SSEParserForTests()
            let tokens = parser.events(stream.body).filter { $0.name == "token" }
            let chunks = MockReply.chunks(model: "mock-fast", tokens: 90)
            #expect(tokens.first?.json["text"] as? String == chunks[0])
            // 90 tokens over about 900 ms, an event every 100 ms or so: at most one event per two tokens.
            #expect(tokens.count <= chunks.count / 2, "token events: \(tokens.count)")
            #expect(tokens.map { $0.json["text"] as? String ?? "" }.joined() == chunks.joined())
        }
    }

    @Test(
        "a long markdown reply arrives block by block, ends at the final render, and costs under three times its HTML",
        arguments: TestDatabase.allCases)
    func longReplyStreamsBlockByBlock(database: TestDatabase) async throws {
        try await withTestServer(mockDelayMilliseconds: 1, database: database) { server in
            let api = try await Self.signedIn(server)
            let id = try await api.createConversation(model: "mock-long")
            let stream = try await api.request(
                .POST, "/api/conversations/\(id)/messages", json: ["content": "Write"],
                headers: [("Accept", "text/event-stream")])
            var parser = SSEParserForTests()
            let events = parser.events(stream.body)
            let html = try #require(events.done?.json["html"] as? String)
            #expect(html == MarkdownRenderer.html(MockReply.text(model: "mock-long", tokens: 0)))
            #expect(events.streamedHTML == html)
            let tokens = events.filter { $0.name == "token" }
            #expect(tokens.filter { !($0.json["append"] as? String ?? "").isEmpty }.count >= 10)
            // How many events hold a tail back depends on how much text each carries, which a loaded machine changes:
            // the mock keeps its pace and sends what fell due meanwhile at once, as an upstream does after a stall.
            // The holding back itself is `EfficiencyTests.aChangedTailWaitsUntilTheTextPaysForIt`; its effect is this
            // bound.
            let sent = tokens.reduce(0) { total, event in
                total + (event.json["append"] as? String ?? "").utf8.count
                    + (event.json["tail"] as? String ?? "").utf8.count
            }
            #expect(sent <= 3 * html.utf8.count)
        }
    }

    @Test(
        "stop ends the reply at once: partial text kept as stopped, upstream request closed, others untouched",
        arguments: TestDatabase.allCases)
    func stopOneOfMany(database: TestDatabase) async throws {
        try await withTestServer(mockTokens: 40, database: database) { server in
            let api = try await Self.signedIn(server)
            var conversations: [Int64] = []
            for _ in 0..<10 { conversations.append(try await api.createConversation(model: "mock-slow")) }
            let readers = try await withThrowingTaskGroup(of: (Int64, EventReader).self) { group in
                for id in conversations {
                    group.addTask {
                        let reader = try await api.events(id)
                        #expect(try await api.send(id, "go").status == 202)
                        return (id, reader)
                    }
                }
                return try await group.reduce(into: [Int64: EventReader]()) { $0[$1.0] = $1.1 }
            }
            let victim = conversations[3]
            let firstTokens = try await readers[victim]!.collect { $0.name == "token" }
            #expect(firstTokens.text.isEmpty == false)
            try await server.waitForMock { $0.open == 10 }
            let stop = try await api.request(.POST, "/api/conversations/\(victim)/stop")
            #expect(stop.status == 204)
            // The upstream request is closed well before the reply's remaining ~4 s would have ended it; the others
            // go on (each completes below, and none is aborted).
            let afterStop = try await server.waitForMock(timeout: .seconds(3)) { $0.aborted == 1 }
            #expect(afterStop.aborted == 1)
            #expect(afterStop.open + afterStop.completed == 9)
            let rest = try await readers[victim]!.untilDone()
            let done = try #require(rest.done?.json)
            #expect(done["status"] as? String == "stopped")
            let saved = try await api.messages(victim)[1]
            #expect(saved["status"] as? String == "stopped")
            let partial = try #require(saved["content"] as? String)
            #expect(!partial.isEmpty)
            #expect(MockReply.text(model: "mock-slow", tokens: 40).hasPrefix(partial))
            #expect(partial == firstTokens.text + rest.text)
            #expect(try await api.request(.POST, "/api/conversations/\(victim)/stop").status == 204)

            for id in conversations where id != victim {
                let events = try await readers[id]!.untilDone(timeout: .seconds(20))
                #expect(events.done?.json["status"] as? String == "complete")
                #expect(events.text == MockReply.text(model: "mock-slow", tokens: 40))
            }
            let stats = try await server.mockStats()
            #expect(stats.completed == 9)
            #expect(stats.open == 0)
            #expect(try await server.gauge("parley_generations_running") == 0)
            #expect(try await server.gauge("parley_event_streams_open") == 10)
        }
    }

    @Test("stop when nothing runs is 204 and changes nothing", arguments: TestDatabase.allCases)
    func stopWhenIdle(database: TestDatabase) async throws {
        try await withTestServer(database: database) { server in
            let api = try await Self.signedIn(server)
            let id = try await api.createConversation()
            #expect(try await api.request(.POST, "/api/conversations/\(id)/stop").status == 204)
            var browser = server.browser()
            _ = try await browser.signIn("user@example.com")
            let form = try await browser.post("/c/\(id)/stop")
            #expect(form.status == 303)
            #expect(try await api.messages(id).isEmpty)
        }
    }

    @Test(
        "a reconnect with Last-Event-ID resumes exactly after it; garbage or future ids replay everything",
        arguments: TestDatabase.allCases)
    func resume(database: TestDatabase) async throws {
        try await withTestServer(mockTokens: 40, database: database) { server in
            let api = try await Self.signedIn(server)
            let id = try await api.createConversation(model: "mock-slow")
            let first = try await api.events(id)
            #expect(try await api.send(id, "go").status == 202)
            let head = try await first.untilTokens(3)
            let lastID = try #require(head.last?.id)
            let resumed = try await api.events(id, lastEventID: lastID)
            let tail = try await resumed.untilDone(timeout: .seconds(20))
            let expected = MockReply.text(model: "mock-slow", tokens: 40)
            #expect(head.text + tail.text == expected)
            #expect(tail.first?.name == "token")
            #expect(head.compactMap(\.id).filter { id in tail.contains { $0.id == id } }.isEmpty)

            let id2 = try await api.createConversation(model: "mock-slow")
            #expect(try await api.send(id2, "go").status == 202)
            for garbage in ["garbage", "-5", "99999999999999999", String(Int64.max)] {
                let replay = try await api.events(id2, lastEventID: garbage)
                let events = try await replay.collect { $0.name == "token" }
                #expect(events.first?.name == "start", "Last-Event-ID \(garbage)")
            }
            _ = try await api.events(id2).untilDone(timeout: .seconds(20))
        }
    }

    @Test(
        "a client that missed the end gets the stored done on reconnect; one that saw it gets nothing again",
        arguments: TestDatabase.allCases)
    func resumeAfterEnd(database: TestDatabase) async throws {
        try await withTestServer(mockTokens: 5, database: database) { server in
            let api = try await Self.signedIn(server)
            let id = try await api.createConversation()
            let stream = try await api.events(id)
            let sent = try await api.send(id, "hi")
            let assistant = try #require(try sent.json()["assistant_message_id"] as? Int)
            let events = try await stream.untilDone()
            let doneID = try #require(events.done?.id)
            let startID = try #require(events.first { $0.name == "start" }?.id)
            // No wait: once a stream has the done, nothing runs there any more (the hub ends a reply in one step).
            let missed = try await api.events(id, lastEventID: startID)
            let recovered = try await missed.untilDone()
            // Either the rest of the kept log (every token after start) or, once the log is gone, the stored done
            // alone.
            #expect(
                recovered.text.isEmpty
                    ? recovered.count == 1 : recovered.text == MockReply.text(model: "mock-fast", tokens: 5))
            #expect(recovered.done?.json["message_id"] as? Int == assistant)
            #expect(recovered.done?.json["status"] as? String == "complete")
            let upToDate = try await api.events(id, lastEventID: doneID)
            // Two heartbeats (500 ms apart in tests): whatever the stream sends on connecting or on its first wake-up is
            // in by the second.
            #expect(try await upToDate.waitForComments(2))
            let nothing = try? await upToDate.collect(timeout: .milliseconds(10)) { _ in true }
            #expect(nothing == nil)
        }
    }

    @Test("idle streams get a heartbeat comment", arguments: TestDatabase.allCases)
    func heartbeat(database: TestDatabase) async throws {
        try await withTestServer(database: database) { server in
            let api = try await Self.signedIn(server)
            let id = try await api.createConversation()
            let stream = try await api.events(id)
            #expect(stream.status == 200)
            // Heartbeats every 500 ms: two arrive well within the wait even on a loaded machine, and no event does.
            #expect(try await stream.waitForComments(2))
            let events = try? await stream.collect(timeout: .milliseconds(10)) { _ in true }
            #expect(events == nil)
        }
    }

    @Test(
        "the same request_id never starts a second reply: 409 while running, the original result after",
        arguments: TestDatabase.allCases)
    func idempotentSend(database: TestDatabase) async throws {
        // 60 tokens 100 ms apart (mock-slow): the first reply is still running when the next sends arrive, even on a
        // loaded machine.
        try await withTestServer(mockTokens: 60, database: database) { server in
            let api = try await Self.signedIn(server)
            let id = try await api.createConversation(model: "mock-slow")
            let first = try await api.send(id, "once", requestID: "req-1")
            #expect(first.status == 202)
            let again = try await api.send(id, "once", requestID: "req-1")
            #expect(again.status == 409)
            #expect(
                try again.json()["error"].flatMap { $0 as? [String: Any] }?["code"] as? String == "request_in_flight")
            let other = try await api.send(id, "another", requestID: "req-2")
            #expect(other.status == 409)
            #expect(
                try other.json()["error"].flatMap { $0 as? [String: Any] }?["code"] as? String == "generation_running")
            _ = try await api.events(id, lastEventID: "\(try first.json()["assistant_message_id"] as! Int)0000000")
                .untilDone(timeout: .seconds(20))
            let repeated = try await api.send(id, "once", requestID: "req-1")
            #expect(repeated.status == 202)
            #expect(
                try repeated.json()["assistant_message_id"] as? Int
                    == (try first.json()["assistant_message_id"] as? Int))
            #expect(try repeated.json()["repeated"] as? Bool == true)
            #expect(try await api.messages(id).count == 2)
            let stats = try await server.mockStats()
            #expect(stats.requests == 1)
        }
    }

    @Test("regenerate replaces the last reply with a new one", arguments: TestDatabase.allCases)
    func regenerate(database: TestDatabase) async throws {
        try await withTestServer(mockTokens: 8, database: database) { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let api = try await APIClient.signIn(server, email: "user@example.com")
            let id = try await api.createConversation()
            let sent = try await api.send(id, "hi")
            let oldReply = try #require(try sent.json()["assistant_message_id"] as? Int)
            _ = try await api.events(id, lastEventID: "\(oldReply)0000000").untilDone()
            let regenerated = try await browser.post("/c/\(id)/regenerate", headers: [("Accept", "application/json")])
            #expect(regenerated.status == 202)
            let newReply = try #require(try regenerated.json()["assistant_message_id"] as? Int)
            #expect(newReply > oldReply)
            _ = try await api.events(id, lastEventID: "\(newReply)0000000").untilDone()
            let messages = try await api.messages(id)
            #expect(messages.count == 2)
            #expect(messages[1]["id"] as? Int == newReply)
            #expect(messages[1]["status"] as? String == "complete")
            #expect(try await server.mockStats().requests == 2)
        }
    }

    @Test(
        "the browser form sends without JavaScript and the page shows the reply once complete",
        arguments: TestDatabase.allCases)
    func formSend(database: TestDatabase) async throws {
        try await withTestServer(mockTokens: 6, database: database) { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let id = try await browser.createConversation()
            let sent = try await browser.post(
                "/c/\(id)/messages", form: ["content": "**bold** question", "request_id": "r1"])
            #expect(sent.status == 303)
            #expect(sent.location == "/c/\(id)")
            let api = try await APIClient.signIn(server, email: "user@example.com")
            try await server.waitForMock { $0.completed == 1 }
            var page = try await browser.get("/c/\(id)")
            for _ in 0..<50 where page.body.contains(#"data-status="streaming""#) {
                try await Task.sleep(for: .milliseconds(20))
                page = try await browser.get("/c/\(id)")
            }
            #expect(page.body.contains("<strong>bold</strong> question"))
            #expect(page.body.contains(MarkdownRenderer.html(MockReply.text(model: "mock-fast", tokens: 6))))
            #expect(try await api.messages(id).count == 2)
        }
    }

    @Test(
        "the context sent upstream holds the system prompt and the conversation so far",
        arguments: TestDatabase.allCases)
    func contextSentUpstream(database: TestDatabase) async throws {
        try await withTestServer(mockTokens: 4, database: database) { server in
            let api = try await Self.signedIn(server)
            let id = try await api.createConversation(systemPrompt: "Be brief.")
            let first = try await api.send(id, "first question")
            let reply = try #require(try first.json()["assistant_message_id"] as? Int)
            _ = try await api.events(id, lastEventID: "\(reply)0000000").untilDone()
            _ = try await api.send(id, "second question")
            try await server.waitForMock { $0.completed == 2 }
            let response = try await server.client.execute(.init(url: server.mockURL + "/stats"), timeout: .seconds(5))
            let body =
                try JSONSerialization.jsonObject(
                    with: Data(try await response.body.collect(upTo: 1 << 20).readableBytesView)) as? [String: Any]
            let last = try #require(body?["last_request"] as? [String: Any])
            let messages = try #require(last["messages"] as? [[String: String]])
            #expect(messages.map { $0["role"] ?? "" } == ["system", "user", "assistant", "user"])
            #expect(messages[0]["content"] == "Be brief.")
            #expect(messages[2]["content"] == MockReply.text(model: "mock-fast", tokens: 4))
            #expect(messages[3]["content"] == "second question")
            #expect(last["stream"] as? Bool == true)
            #expect((last["stream_options"] as? [String: Any])?["include_usage"] as? Bool == true)
        }
    }
}

/// Parses a whole SSE body collected as text.
struct SSEParserForTests {
    mutating func events(_ body: String) -> [ReceivedEvent] {
        var parser = ParleyProvidersSSE()
        return parser.feed(body)
    }
}
