import Foundation
import Testing

@testable import ParleyServer

/// Conversation pages and the JSON API: listing, pagination, ownership, validation and safe rendering.
@Suite("Conversations")
struct ConversationTests {
    @Test("conversations list newest activity first, 50 a page, with a cursor")
    func pagination() async throws {
        try await withTestServer { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let api = try await APIClient.signIn(server, email: "user@example.com")
            var ids: [Int64] = []
            for _ in 0..<55 { ids.append(try await api.createConversation()) }
            let first = try await api.request(.GET, "/api/conversations")
            let firstPage = try #require(first.json()["data"] as? [[String: Any]])
            #expect(firstPage.count == 50)
            #expect(try first.json()["has_more"] as? Bool == true)
            #expect(firstPage.compactMap { ($0["id"] as? Int).map(Int64.init) } == Array(ids.reversed().prefix(50)))
            let lastID = try #require(firstPage.last?["id"] as? Int)
            let second = try await api.request(.GET, "/api/conversations?after_id=\(lastID)")
            let secondPage = try #require(second.json()["data"] as? [[String: Any]])
            #expect(secondPage.compactMap { ($0["id"] as? Int).map(Int64.init) } == Array(ids.reversed().suffix(5)))
            #expect(try second.json()["has_more"] as? Bool == false)

            let html = try await browser.get("/c")
            #expect(html.body.contains(#"href="/c?before=\#(ids[5])""#))
            let older = try await browser.get("/c?before=\(ids[5])")
            #expect(older.body.contains(#"href="/c/\#(ids[0])""#))
            #expect(!older.body.contains(#"href="/c/\#(ids[54])""#))

            for bad in ["after_id=abc", "after_id=-1", "limit=0", "limit=100000"] {
                #expect(try await api.request(.GET, "/api/conversations?\(bad)").status == 400, "\(bad)")
            }
            #expect(try await browser.get("/c?before=xyz").status == 400)
        }
    }

    @Test("another user's conversation is 404 in every route, never 403, and stays intact")
    func ownership() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var owner = server.browser()
            _ = try await owner.signUp("owner@example.com")
            let id = try await owner.createConversation(content: "private words")
            _ = try await owner.get("/c/\(id)")
            var intruder = server.browser()
            _ = try await intruder.signUp("intruder@example.com")
            let api = try await APIClient.signIn(server, email: "intruder@example.com")
            #expect(try await intruder.get("/c/\(id)").status == 404)
            #expect(try await intruder.get("/c/\(id)/events").status == 404)
            #expect(try await intruder.post("/c/\(id)/messages", form: ["content": "hi"]).status == 404)
            #expect(try await intruder.post("/c/\(id)/stop").status == 404)
            #expect(try await intruder.post("/c/\(id)/regenerate").status == 404)
            #expect(try await intruder.post("/c/\(id)/rename", form: ["title": "mine"]).status == 404)
            #expect(try await intruder.post("/c/\(id)/delete").status == 404)
            #expect(try await api.request(.GET, "/api/conversations/\(id)/messages").status == 404)
            #expect(try await api.send(id, "hi").status == 404)
            #expect(try await api.request(.POST, "/api/conversations/\(id)/stop").status == 404)
            #expect(try await api.request(.DELETE, "/api/conversations/\(id)").status == 404)
            #expect(try await intruder.get("/c/999999").status == 404)

            let ownerAPI = try await APIClient.signIn(server, email: "owner@example.com")
            let messages = try await ownerAPI.messages(id)
            #expect(messages.first?["content"] as? String == "private words")
            let page = try await owner.get("/c/\(id)")
            #expect(page.body.contains("private words"))
        }
    }

    @Test(
        "a new conversation is titled from its first words without markdown; blank or mark-only text gets the default")
    func titles() async throws {
        try await withTestServer(mockTokens: 2) { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let titled = try await browser.createConversation(
                content: "## Plan **my** trip to `Lisbon` next week please, thanks a lot")
            #expect(
                try await browser.get("/c/\(titled)").body.contains("<h1>Plan my trip to Lisbon next week please,</h1>")
            )
            let blank = try await browser.createConversation(content: "   ")
            #expect(try await browser.get("/c/\(blank)").body.contains("<h1>New conversation</h1>"))
            let marks = try await browser.createConversation(content: "***")
            #expect(try await browser.get("/c/\(marks)").body.contains("<h1>New conversation</h1>"))
            let api = try await APIClient.signIn(server, email: "user@example.com")
            #expect(try await api.messages(blank).isEmpty)
            #expect(try await api.messages(marks).first?["content"] as? String == "***")
        }
    }

    @Test("rename and delete work for the owner; deleting removes the messages")
    func renameAndDelete() async throws {
        try await withTestServer { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let id = try await browser.createConversation(content: "hello")
            #expect(try await browser.post("/c/\(id)/rename", form: ["title": "Trip plans"]).status == 303)
            #expect(try await browser.get("/c/\(id)").body.contains("Trip plans"))
            #expect(try await browser.post("/c/\(id)/rename", form: ["title": "   "]).status == 422)
            #expect(
                try await browser.post("/c/\(id)/rename", form: ["title": String(repeating: "x", count: 201)]).status
                    == 422)
            #expect(try await browser.get("/c/\(id)").body.contains("Trip plans"))
            let deleted = try await browser.post("/c/\(id)/delete")
            #expect(deleted.status == 303)
            #expect(deleted.location == "/c")
            #expect(try await browser.get("/c/\(id)").status == 404)
        }
    }

    @Test("the system prompt is set from the page, validated, and sent upstream with the next reply")
    func systemPrompt() async throws {
        try await withTestServer(mockTokens: 3) { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let id = try await browser.createConversation()
            #expect(
                try await browser.post("/c/\(id)/settings", form: ["system_prompt": "Answer in French."]).status == 303)
            #expect(try await browser.get("/c/\(id)").body.contains("Answer in French."))
            let tooLong = try await browser.post(
                "/c/\(id)/settings", form: ["system_prompt": String(repeating: "x", count: 20_001)])
            #expect(tooLong.status == 422)
            #expect(
                try await browser.post("/c/\(id)/settings", form: ["system_prompt": "", "model": "nope"]).status == 422)
            let api = try await APIClient.signIn(server, email: "user@example.com")
            let reply = try #require(try await api.send(id, "Bonjour").json()["assistant_message_id"] as? Int)
            _ = try await api.events(id, lastEventID: "\(reply)0000000").untilDone()
            let stats = try await server.client.execute(.init(url: server.mockURL + "/stats"), timeout: .seconds(5))
            let body =
                try JSONSerialization.jsonObject(
                    with: Data(try await stats.body.collect(upTo: 1 << 20).readableBytesView)) as? [String: Any]
            let messages = (body?["last_request"] as? [String: Any])?["messages"] as? [[String: String]]
            #expect(messages?.first == ["role": "system", "content": "Answer in French."])
        }
    }

    @Test("empty, whitespace-only and over-long messages get 422; an over-limit body gets 413; nothing is stored")
    func messageValidation() async throws {
        try await withTestServer { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let api = try await APIClient.signIn(server, email: "user@example.com")
            let id = try await api.createConversation()
            #expect(try await api.send(id, "").status == 422)
            #expect(try await api.send(id, " \n\t ").status == 422)
            let long = try await api.send(id, String(repeating: "a", count: 100_001))
            #expect(long.status == 422)
            #expect(try long.json()["error"].flatMap { $0 as? [String: Any] }?["code"] as? String == "message_too_long")
            let huge = try await browser.post(
                "/c/\(id)/messages", form: ["content": String(repeating: "b", count: 2_000_000)])
            #expect(huge.status == 413)
            #expect(try await api.send(id, "hi", model: "no-such-model").status == 422)
            let malformed = try await api.request(
                .POST, "/api/conversations/\(id)/messages", json: ["text": "no content field"])
            #expect(malformed.status == 400)
            let wrongType = try await api.request(
                .POST, "/api/conversations/\(id)/messages",
                headers: [("Content-Type", "text/plain")])
            #expect(wrongType.status == 415)
            #expect(try await api.messages(id).isEmpty)
        }
    }

    @Test("hostile titles and messages are rendered inert")
    func hostileText() async throws {
        try await withTestServer { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let payload = "<script>alert(1)</script> [click](javascript:alert(2)) <img src=x onerror=alert(3)>"
            let id = try await browser.createConversation()
            _ = try await browser.post("/c/\(id)/rename", form: ["title": "<script>alert('t')</script>"])
            let api = try await APIClient.signIn(server, email: "user@example.com")
            #expect(try await api.send(id, payload).status == 202)
            let page = try await browser.get("/c/\(id)")
            #expect(!page.body.contains("<script>alert"))
            #expect(page.body.contains("<h1>&lt;script&gt;alert("))
            #expect(page.body.contains("raw HTML omitted"))
            #expect(!page.body.contains("javascript:alert"))
            #expect(!page.body.contains("onerror=alert"))
            #expect(page.headers.first(name: "content-security-policy")?.contains("script-src 'self'") == true)
        }
    }

    @Test("unknown routes get a 404 page; security headers are on every response; healthz answers")
    func notFoundAndHeaders() async throws {
        try await withTestServer { server in
            var browser = server.browser()
            let missing = try await browser.get("/no/such/page", headers: [("Accept", "text/html")])
            #expect(missing.status == 404)
            #expect(missing.body.contains("<html"))
            #expect(missing.headers.first(name: "x-content-type-options") == "nosniff")
            #expect(missing.headers.first(name: "content-security-policy")?.contains("frame-ancestors 'none'") == true)
            #expect(missing.headers.first(name: "referrer-policy") == "same-origin")
            let api = try await browser.get("/api/nothing")
            #expect(api.status == 404)
            #expect(try api.json()["error"] != nil)
            let health = try await browser.get("/healthz")
            #expect(health.status == 200)
            let root = try await browser.get("/")
            #expect(root.status == 303)
            #expect(root.location == "/login")
            let css = try await browser.get("/static/app.css")
            #expect(css.status == 200)
            #expect(try await browser.get("/c").location == "/login")
        }
    }
}
