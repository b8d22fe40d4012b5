import Foundation
import MockUpstream
import ParleyCore
import Testing

/// Conversation titles: the first words at once, then the model's own short title after the first complete reply.
@Suite("Titles")
struct TitleTests {
    /// The title of conversation `id` as the API lists it.
    static func title(_ api: APIClient, _ id: Int64) async throws -> String? {
        let list = try await api.request(.GET, "/api/conversations?limit=50").json()["data"] as? [[String: Any]] ?? []
        return list.first { ($0["id"] as? Int).map(Int64.init) == id }?["title"] as? String
    }

    /// Polls the title until it differs from `old`, for at most five seconds.
    static func titleChange(_ api: APIClient, _ id: Int64, from old: String?) async throws -> String? {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            let current = try await title(api, id)
            if current != old { return current }
            try await Task.sleep(for: .milliseconds(50))
        }
        return old
    }

    @Test("the first words title a conversation at once; the model's title replaces them after the first reply")
    func modelTitle() async throws {
        // 200 ms between tokens: the reply, and so the title request after it, cannot end before the first words are
        // read.
        try await withTestServer(
            mockTokens: 6, mockDelayMilliseconds: 200, configure: { $0.generation.modelTitles = true }
        ) { server in
            let api = try await GenerationTests.signedIn(server)
            let id = try await api.createConversation()
            let reader = try await api.events(id)
            #expect(try await api.send(id, "What is the **capital** of France?").status == 202)
            #expect(try await Self.title(api, id) == "What is the capital of France?")
            _ = try await reader.untilDone()
            let improved = try await Self.titleChange(api, id, from: "What is the capital of France?")
            // The mock answers the title request with its usual reply; the title is its first line, cleaned.
            #expect(improved == ConversationTitle.fromModel(MockReply.text(model: "mock-fast", tokens: 6)))
            #expect(improved == "Hello! This is a mock reply")
            let request = try #require(try await server.mockLastRequest())
            #expect(request.contains("Write a title of at most six words"))
            #expect(request.contains("What is the **capital** of France?"))
            // A second exchange never retitles.
            let before = try await server.mockStats().requests
            #expect(try await api.send(id, "And of Spain?").status == 202)
            _ = try await reader.untilDone()
            // Real time: a title request not made has no event; one made at the done would reach the mock in 300 ms.
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await server.mockStats().requests == before + 1)
        }
    }

    @Test(
        "the title request asks for at most 20 tokens up to a newline, closes its stream once a line is read, and is charged as a title's"
    )
    func titleReadsOneLine() async throws {
        // 100 tokens 30 ms apart, a paragraph break at the 20th: read whole, the title's answer would take 3 s.
        try await withTestServer(
            mockTokens: 100, mockDelayMilliseconds: 30, configure: { $0.generation.modelTitles = true }
        ) { server in
            let api = try await GenerationTests.signedIn(server)
            // A server that ignores `stop` and `max_tokens`: Parley's own cut at the line's end closes the stream.
            let id = try await api.createConversation(model: "mock-deaf")
            let reader = try await api.events(id)
            #expect(try await api.send(id, "What is the capital of France?").status == 202)
            _ = try await reader.untilDone(timeout: .seconds(20))
            let stats = try await server.waitForMock(timeout: .seconds(10)) { $0.aborted >= 1 }
            #expect(stats.aborted == 1 && stats.completed == 1)
            let request = try #require(try await server.mockLastRequest())
            #expect(request.contains(#""max_tokens":20"#) && request.contains(#""stop":["\n"]"#))
            let title = try await Self.titleChange(api, id, from: "What is the capital of France?")
            #expect(
                title != nil && title == ConversationTitle.fromModel(MockReply.text(model: "mock-fast", tokens: 100)))
            // Cut before its usage came, the title is charged an estimate, as a title's and not as a message answered.
            let database = try server.database()
            #expect(try await database.integer("SELECT SUM(title_tokens) FROM usage_daily") > 0)
            #expect(try await database.integer("SELECT SUM(estimated_tokens) FROM usage_daily") > 0)
            #expect(try await database.integer("SELECT SUM(requests) FROM usage_daily") == 1)
        }
    }

    @Test(
        "a send while the title is being asked for ends the title request at once; the reply is not held back, the first words stay"
    )
    func sendInterruptsTheTitle() async throws {
        // 19 tokens 100 ms apart, no line break: the title's answer would take 1.9 s.
        try await withTestServer(
            mockTokens: 19, mockDelayMilliseconds: 100, configure: { $0.generation.modelTitles = true }
        ) { server in
            let api = try await GenerationTests.signedIn(server)
            let id = try await api.createConversation()
            let reader = try await api.events(id)
            #expect(try await api.send(id, "What is the capital of France?").status == 202)
            _ = try await reader.untilDone(timeout: .seconds(20))
            _ = try await server.waitForMock { $0.open == 1 }  // the title request
            let sent = ContinuousClock.now
            #expect(try await api.send(id, "And of Spain?").status == 202)
            let stats = try await server.waitForMock(timeout: .seconds(5)) { $0.aborted >= 1 }
            #expect(stats.aborted == 1)
            #expect(sent.duration(to: .now) < .seconds(1.9))
            let second = try await reader.untilDone(timeout: .seconds(20))
            #expect(second.done?.json["status"] as? String == "complete")
            #expect(try await Self.title(api, id) == "What is the capital of France?")
        }
    }

    @Test("a rename during the first reply is kept; a failed title request keeps the first words")
    func renameAndFailureWin() async throws {
        try await withTestServer(mockTokens: 8, configure: { $0.generation.modelTitles = true }) { server in
            let api = try await GenerationTests.signedIn(server)
            let renamed = try await api.createConversation(model: "mock-slow")
            let reader = try await api.events(renamed)
            #expect(try await api.send(renamed, "first question").status == 202)
            var browser = server.browser()
            _ = try await browser.signIn("user@example.com")
            #expect(try await browser.post("/c/\(renamed)/rename", form: ["title": "My own name"]).status == 303)
            _ = try await reader.untilDone()
            try await server.waitForMock { $0.open == 0 && $0.completed >= 2 }
            #expect(try await Self.title(api, renamed) == "My own name")

            // mock-429 refuses every other request: the reply's retry succeeds, the title request is refused.
            let before = try await server.mockStats().requests
            let failing = try await api.createConversation(model: "mock-429")
            let failingReader = try await api.events(failing)
            #expect(try await api.send(failing, "second question here").status == 202)
            _ = try await failingReader.untilDone(timeout: .seconds(20))
            // The reply's two requests, then the title's, answered (refused) by the mock.
            let asked = try await server.waitForMock { $0.requests == before + 3 && $0.open == 0 }
            #expect(asked.requests == before + 3)
            #expect(try await Self.title(api, failing) == "second question here")
        }
    }
}
