import Foundation
import NIOHTTP1
import TestDatabases
import Testing

extension APIClient {
    /// Starts a reply with `path` and `json`, then waits until it is done; returns the 202's JSON.
    func startAndWait(_ conversation: Int64, _ path: String, json: [String: Any]) async throws -> [String: Any] {
        let sent = try await request(.POST, "/api/conversations/\(conversation)" + path, json: json)
        guard sent.status == 202, let reply = try sent.json()["assistant_message_id"] as? Int else {
            throw TestFailure("\(path) answered \(sent.status): \(sent.body)")
        }
        _ = try await events(conversation, lastEventID: "\(reply)0000000").untilDone()
        return try sent.json()
    }

    /// The messages of the current branch (or with `all`, of the whole tree).
    func branch(_ conversation: Int64, all: Bool = false) async throws -> [[String: Any]] {
        let response = try await request(
            .GET, "/api/conversations/\(conversation)/messages?limit=200" + (all ? "&branch=all" : ""))
        guard response.status == 200 else { throw TestFailure("listing messages answered \(response.status)") }
        return try response.json()["data"] as? [[String: Any]] ?? []
    }
}

/// The texts of user messages, in order.
private func questions(_ messages: [[String: Any]]) -> [String] {
    messages.filter { $0["role"] as? String == "user" }.compactMap { $0["content"] as? String }
}

/// The contents the mock was last asked about, the system prompt left out.
private func askedTexts(_ server: TestServer) async throws -> [String] {
    let text = try #require(try await server.mockLastRequest())
    let request = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    let messages = request?["messages"] as? [[String: Any]] ?? []
    return messages.filter { $0["role"] as? String != "system" }.compactMap { $0["content"] as? String }
}

/// Conversations as trees over HTTP: edits and regenerations keep every version, the branch shown is stored, and the
/// context sent upstream is the path to the message answered.
@Suite("Conversation trees")
struct ConversationTreeTests {
    @Test(
        "an edit starts a new branch whose context is its own path; walking back shows the first branch whole",
        arguments: TestDatabase.allCases)
    func editAndWalk(database: TestDatabase) async throws {
        try await withTestServer(mockTokens: 3, database: database) { server in
            let (_, api) = try await server.signUp("user@example.com")
            let id = try await api.createConversation()
            try await api.sendAndWait(id, "first question")
            try await api.sendAndWait(id, "second question")
            let original = try await api.branch(id)
            let second = try #require(original[2]["id"] as? Int)

            let edited = try await api.startAndWait(
                id, "/messages", json: ["content": "second, edited", "edit_of": second])
            #expect(try await askedTexts(server).contains("second, edited"))
            #expect(try await !askedTexts(server).contains("second question"))
            let branch = try await api.branch(id)
            #expect(questions(branch) == ["first question", "second, edited"])
            #expect(branch[2]["parent_id"] as? Int == original[2]["parent_id"] as? Int)
            #expect(branch[2]["sibling_index"] as? Int == 2 && branch[2]["sibling_count"] as? Int == 2)
            #expect(edited["message_id"] as? Int == branch[2]["id"] as? Int)
            #expect(try await api.branch(id, all: true).count == 6)

            // Walking back: the first version's branch, stored for the next reader.
            let chosen = try await api.request(.PUT, "/api/conversations/\(id)/current", json: ["message_id": second])
            #expect(chosen.status == 200)
            #expect(try chosen.json()["current_leaf_id"] as? Int == original[3]["id"] as? Int)
            #expect(questions(try await api.branch(id)) == ["first question", "second question"])
            let conversation = try await api.request(.GET, "/api/conversations/\(id)")
            #expect(try conversation.json()["current_leaf_id"] as? Int == original[3]["id"] as? Int)
        }
    }

    @Test(
        "regenerate keeps every reply as a version; any earlier reply can be regenerated",
        arguments: TestDatabase.allCases)
    func regenerateKeepsVersions(database: TestDatabase) async throws {
        try await withTestServer(mockTokens: 3, database: database) { server in
            let (_, api) = try await server.signUp("user@example.com")
            let id = try await api.createConversation()
            try await api.sendAndWait(id, "one")
            try await api.sendAndWait(id, "two")
            _ = try await api.startAndWait(id, "/regenerate", json: [:])
            _ = try await api.startAndWait(id, "/regenerate", json: [:])
            let branch = try await api.branch(id)
            #expect(branch.count == 4)
            #expect(branch[3]["sibling_index"] as? Int == 3 && branch[3]["sibling_count"] as? Int == 3)

            // The first reply, regenerated: a new branch after "one" only.
            let firstReply = try #require(branch[1]["id"] as? Int)
            _ = try await api.startAndWait(id, "/regenerate", json: ["message_id": firstReply])
            #expect(try await askedTexts(server) == ["one"])
            let after = try await api.branch(id)
            #expect(questions(after) == ["one"] && after.count == 2)
            #expect(after[1]["sibling_index"] as? Int == 2)
            #expect(try await api.branch(id, all: true).count == 7)
        }
    }

    @Test("bad anchors are refused with a clear status and nothing is stored", arguments: TestDatabase.allCases)
    func badAnchorsAreRefused(database: TestDatabase) async throws {
        try await withTestServer(mockTokens: 3, database: database, configure: { $0.signup = .open }) { server in
            let (_, api) = try await server.signUp("user@example.com")
            let (_, mallory) = try await server.signUp("mallory@example.com")
            let id = try await api.createConversation()
            let other = try await api.createConversation()
            try await api.sendAndWait(id, "question")
            let branch = try await api.branch(id)
            let question = try #require(branch[0]["id"] as? Int)
            let reply = try #require(branch[1]["id"] as? Int)
            let base = "/api/conversations/\(id)"

            func status(_ method: HTTPMethod, _ path: String, _ json: [String: Any], as client: APIClient? = nil)
                async throws -> Int
            {
                try await (client ?? api).request(method, path, json: json).status
            }
            #expect(try await status(.POST, base + "/messages", ["content": "x", "edit_of": reply]) == 422)
            #expect(try await status(.POST, base + "/messages", ["content": "x", "edit_of": 999_999]) == 404)
            #expect(
                try await status(.POST, "/api/conversations/\(other)/messages", ["content": "x", "edit_of": question])
                    == 404)
            #expect(try await status(.POST, base + "/messages", ["content": "x", "edit_of": "one"]) == 400)
            #expect(try await status(.POST, base + "/regenerate", ["message_id": question]) == 422)
            #expect(try await status(.POST, "/api/conversations/\(other)/regenerate", ["message_id": reply]) == 404)
            #expect(try await status(.PUT, base + "/current", ["message_id": 999_999]) == 404)
            #expect(try await status(.PUT, base + "/current", [:]) == 400)
            #expect(try await status(.PUT, base + "/current", ["message_id": question], as: mallory) == 404)
            #expect(
                try await status(.POST, base + "/messages", ["content": "x", "edit_of": question], as: mallory) == 404)
            #expect(try await mallory.request(.DELETE, base + "/messages/\(question)").status == 404)
            #expect(try await api.request(.GET, base + "/messages?branch=some").status == 400)
            #expect(try await mallory.request(.GET, base).status == 404)
            #expect(try await api.branch(id, all: true).count == 2)
        }
    }

    @Test(
        "export.json keeps every branch; importing it restores the tree with the same branch current",
        arguments: TestDatabase.allCases)
    func exportImportKeepsTheTree(database: TestDatabase) async throws {
        try await withTestServer(mockTokens: 3, database: database) { server in
            let signedUp = try await server.signUp("user@example.com")
            var browser = signedUp.browser
            let api = signedUp.api
            let id = try await api.createConversation()
            try await api.sendAndWait(id, "one")
            try await api.sendAndWait(id, "two")
            let second = try #require(try await api.branch(id)[2]["id"] as? Int)
            _ = try await api.startAndWait(id, "/messages", json: ["content": "two, edited", "edit_of": second])
            _ = try await api.startAndWait(id, "/regenerate", json: [:])
            let exported = try await browser.get("/c/\(id)/export.json")
            let markdown = try await browser.get("/c/\(id)/export.md")
            #expect(markdown.body.contains("two, edited") && !markdown.body.contains("\n\ntwo\n"))

            let imported = try await api.post("/settings/import", body: exported.body)
            let copy = Int64(try #require((try imported.json()["conversation_ids"] as? [Int])?.first))
            let shape: ([[String: Any]]) -> [String] = { messages in
                messages.map { "\($0["content"] ?? "")|\($0["sibling_index"] ?? 0)/\($0["sibling_count"] ?? 0)" }
            }
            #expect(shape(try await api.branch(copy)) == shape(try await api.branch(id)))
            #expect(shape(try await api.branch(copy, all: true)) == shape(try await api.branch(id, all: true)))
            #expect(try await api.branch(copy, all: true).count == 7)
        }
    }

    @Test(
        "an imported tree with hostile links (itself, a later message, no such message) imports each as a root",
        arguments: TestDatabase.allCases)
    func hostileTreeImport(database: TestDatabase) async throws {
        try await withTestServer(mockTokens: 3, database: database) { server in
            let (_, api) = try await server.signUp("user@example.com")
            func message(_ id: Int, _ parent: Int?, _ role: String) -> String {
                let link = parent.map { #""parent_id":\#($0),"# } ?? ""
                return #"{"id":\#(id),\#(link)"role":"\#(role)","content":"m\#(id)","status":"complete","model":"m","#
                    + #""created_at":"2025-01-01T00:00:00Z","usage":{"prompt_tokens":0,"completion_tokens":0,"#
                    + #""cost_usd":0,"estimated":false},"attachments":[]}"#
            }
            let messages = [
                message(1, nil, "user"), message(2, 1, "assistant"), message(3, 3, "user"), message(4, 9, "assistant"),
                message(5, 404, "user"), message(6, 2, "user"),
            ]
            let file =
                #"{"format":"parley-export","version":1,"exported_at":"2025-01-01T00:00:00Z","conversations":["#
                + #"{"conversation":{"id":1,"title":"T","model":"m","system_prompt":"","created_at":"2025-01-01T00:00:00Z","#
                + #""updated_at":"2025-01-01T00:00:00Z","pinned":false,"archived":false,"current_leaf_id":6},"#
                + #""messages":["# + messages.joined(separator: ",") + "]}]}"
            let imported = try await api.post("/settings/import", body: file)
            #expect(imported.status == 201)
            let id = Int64(try #require((try imported.json()["conversation_ids"] as? [Int])?.first))
            #expect(try await api.branch(id).compactMap { $0["content"] as? String } == ["m1", "m2", "m6"])
            let all = try await api.branch(id, all: true)
            #expect(all.count == 6)
            #expect(
                all.filter { $0["parent_id"] == nil }.compactMap { $0["content"] as? String } == [
                    "m1", "m3", "m4", "m5",
                ])
        }
    }

    @Test("a search hit in another branch opens that branch, which becomes current", arguments: TestDatabase.allCases)
    func searchHitOpensItsBranch(database: TestDatabase) async throws {
        try await withTestServer(mockTokens: 3, database: database) { server in
            let signedUp = try await server.signUp("user@example.com")
            var browser = signedUp.browser
            let api = signedUp.api
            let id = try await api.createConversation()
            try await api.sendAndWait(id, "narwhals are whales")
            let first = try #require(try await api.branch(id)[0]["id"] as? Int)
            _ = try await api.startAndWait(id, "/messages", json: ["content": "unicorns are myths", "edit_of": first])
            let results = try await browser.get(searchPath("narwhals"))
            let link = "/c/\(id)?at=\(first)#m\(first)"
            #expect(results.body.contains("href=\"\(link)\""))
            let opened = try await browser.get("/c/\(id)?at=\(first)")
            #expect(opened.body.contains("narwhals are whales") && !opened.body.contains("unicorns are myths"))
            #expect(questions(try await api.branch(id)) == ["narwhals are whales"])
            // A message of no branch of this conversation changes nothing.
            #expect(try await browser.get("/c/\(id)?at=999999").status == 200)
            #expect(questions(try await api.branch(id)) == ["narwhals are whales"])
        }
    }

    @Test(
        "a reply streaming in one branch goes on while another is shown, and Stop ends it from there",
        arguments: TestDatabase.allCases)
    func runningReplyBelongsToItsBranch(database: TestDatabase) async throws {
        // 100 tokens 50 ms apart: the reply runs for five seconds, long enough to switch branches meanwhile.
        try await withTestServer(mockTokens: 100, mockDelayMilliseconds: 50, database: database) { server in
            let signedUp = try await server.signUp("user@example.com")
            var browser = signedUp.browser
            let api = signedUp.api
            let id = try await api.createConversation()
            try await api.sendAndWait(id, "first version")
            let first = try #require(try await api.branch(id)[0]["id"] as? Int)
            let sent = try await api.request(
                .POST, "/api/conversations/\(id)/messages", json: ["content": "second version", "edit_of": first])
            let running = try #require(try sent.json()["assistant_message_id"] as? Int)
            let reader = try await api.events(id, lastEventID: "\(running)0000000")
            _ = try await reader.untilTokens(1)

            // Only one reply runs in a conversation: an edit or a regeneration meanwhile is refused as a send is.
            let edit = try await api.request(
                .POST, "/api/conversations/\(id)/messages", json: ["content": "third version", "edit_of": first])
            #expect(edit.status == 409)
            #expect(try await api.request(.POST, "/api/conversations/\(id)/regenerate", json: [:]).status == 409)
            #expect(try await api.branch(id, all: true).count == 4)
            #expect(
                try await api.request(.PUT, "/api/conversations/\(id)/current", json: ["message_id": first]).status
                    == 200)
            let page = try await browser.get("/c/\(id)")
            #expect(page.body.contains("data-elsewhere=\"\(running)\""))
            #expect(!page.body.contains("id=\"m\(running)\""))
            #expect(page.body.contains(#"id="stop-form">"#))
            #expect(try await api.request(.POST, "/api/conversations/\(id)/stop").status == 204)
            let done = try await reader.untilDone()
            #expect(done.last?.json["status"] as? String == "stopped")
            #expect(questions(try await api.branch(id)) == ["first version"])
        }
    }

    @Test("a share snapshots the current branch only", arguments: TestDatabase.allCases)
    func shareTakesTheCurrentBranch(database: TestDatabase) async throws {
        try await withTestServer(mockTokens: 3, database: database) { server in
            let signedUp = try await server.signUp("user@example.com")
            var browser = signedUp.browser
            let api = signedUp.api
            let id = try await api.createConversation()
            try await api.sendAndWait(id, "the first version")
            let first = try #require(try await api.branch(id)[0]["id"] as? Int)
            _ = try await api.startAndWait(id, "/messages", json: ["content": "the second version", "edit_of": first])
            let shared = try await browser.post(
                "/c/\(id)/share", form: ["author": "anonymous", "expires": "never"],
                headers: [("Accept", "application/json")])
            let url = try #require(try shared.json()["url"] as? String)
            var visitor = server.browser()
            let page = try await visitor.get(url)
            // The title keeps the first words; the messages are the second version's.
            #expect(page.body.contains("<p>the second version</p>") && !page.body.contains("<p>the first version</p>"))
        }
    }

    @Test("deleting a message deletes what follows it; the parent's branch shows", arguments: TestDatabase.allCases)
    func deleteMessage(database: TestDatabase) async throws {
        try await withTestServer(mockTokens: 3, database: database) { server in
            let (_, api) = try await server.signUp("user@example.com")
            let id = try await api.createConversation()
            try await api.sendAndWait(id, "one")
            try await api.sendAndWait(id, "two")
            let branch = try await api.branch(id)
            let second = try #require(branch[2]["id"] as? Int)
            #expect(try await api.request(.DELETE, "/api/conversations/\(id)/messages/\(second)").status == 204)
            #expect(questions(try await api.branch(id)) == ["one"])
            #expect(try await api.branch(id, all: true).count == 2)
            #expect(try await api.request(.DELETE, "/api/conversations/\(id)/messages/\(second)").status == 404)
        }
    }

    @Test(
        "without JavaScript: Edit opens the editor, saving sends a new version, and ◀ ▶ walk the versions",
        arguments: TestDatabase.allCases)
    func pageForms(database: TestDatabase) async throws {
        try await withTestServer(mockTokens: 3, database: database) { server in
            let signedUp = try await server.signUp("user@example.com")
            var browser = signedUp.browser
            let api = signedUp.api
            let id = try await api.createConversation()
            try await api.sendAndWait(id, "hello there")
            let question = try #require(try await api.branch(id)[0]["id"] as? Int)

            let page = try await browser.get("/c/\(id)")
            #expect(page.body.contains("href=\"/c/\(id)?edit=\(question)#editor\""))
            #expect(!page.body.contains("id=\"editor\""))
            let editor = try await browser.get("/c/\(id)?edit=\(question)")
            #expect(editor.body.contains("name=\"edit_of\" value=\"\(question)\""))
            #expect(editor.body.contains(">hello there</textarea>"))

            let saved = try await browser.post(
                "/c/\(id)/messages", form: ["content": "hello again", "edit_of": String(question)])
            #expect(saved.status == 303)
            let reply = try #require(try await api.branch(id).last?["id"] as? Int)
            _ = try await api.events(id, lastEventID: "\(reply)0000000").untilDone()
            let edited = try await browser.get("/c/\(id)")
            #expect(edited.body.contains("<span>2/2</span>"))
            #expect(edited.body.contains("form=\"version-form\" name=\"message_id\" value=\"\(question)\""))

            let back = try await browser.post("/c/\(id)/current", form: ["message_id": String(question)])
            #expect(back.status == 303 && back.location == "/c/\(id)#m\(question)")
            let first = try await browser.get("/c/\(id)")
            #expect(first.body.contains("<span>1/2</span>") && first.body.contains("hello there"))
            #expect(!first.body.contains("hello again"))

            // Delete asks first; confirmed, the question and its reply go, and the other version shows.
            let asked = try await browser.post("/c/\(id)/delete-message", form: ["message_id": String(question)])
            #expect(asked.status == 200 && asked.body.contains(#"id="confirm-delete""#))
            #expect(try await api.branch(id, all: true).count == 4)
            let deleted = try await browser.post(
                "/c/\(id)/delete-message", form: ["message_id": String(question), "confirm": "1"])
            #expect(deleted.status == 303)
            #expect(questions(try await api.branch(id)) == ["hello again"])
            #expect(try await api.branch(id, all: true).count == 2)
        }
    }
}
