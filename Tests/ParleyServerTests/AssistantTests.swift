import AsyncHTTPClient
import Foundation
import NIOCore
import ParleyCore
import ParleyStore
import Testing

@testable import ParleyServer

/// Assistants: made and changed by their author (or an admin), shared with no one, everyone or groups, used and
/// duplicated by whom they are shared with; a conversation keeps a copy of the version it started with; bad input is
/// refused with nothing changed; the dashboard groups spend by assistant.
@Suite("Assistants")
struct AssistantTests {
    /// A valid assistant body, with `extra` over it.
    static func body(_ extra: [String: Any] = [:]) -> [String: Any] {
        [
            "name": "Code reviewer", "icon": "🧐", "description": "Reviews diffs", "instructions": "Review code.",
            "model": "mock-fast", "starters": ["Review this diff", "Explain this function"],
            "settings": ["temperature": 0.2],
        ].merging(extra) { $1 }
    }

    /// Makes an assistant through the API; returns its JSON.
    static func make(_ api: APIClient, _ extra: [String: Any] = [:]) async throws -> [String: Any] {
        let made = try await api.request(.POST, "/api/assistants", json: body(extra))
        #expect(made.status == 201, "\(made.body)")
        return try made.json()
    }

    @Test func aConversationKeepsTheVersionItStartedWith() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            let (_, api) = try await server.signUp("author@example.com")
            let assistant = try await Self.make(api)
            let id = try #require(assistant["id"] as? Int)
            #expect(assistant["version"] as? Int == 1 && assistant["can_change"] as? Bool == true)
            let started = try await api.request(.POST, "/api/conversations", json: ["assistant_id": id])
            #expect(started.status == 201, "\(started.body)")
            let conversation = try started.json()
            let conversationID = try #require(conversation["id"] as? Int)
            #expect(conversation["system_prompt"] as? String == "Review code.")
            #expect((conversation["settings"] as? [String: Any])?["temperature"] as? Double == 0.2)
            #expect((conversation["assistant"] as? [String: Any])?["version"] as? Int == 1)

            let changed = try await api.request(
                .PATCH, "/api/assistants/\(id)", json: ["instructions": "Review code harshly.", "name": "Reviewer"])
            #expect(try changed.status == 200 && changed.json()["version"] as? Int == 2)
            let kept = try await api.request(.GET, "/api/conversations/\(conversationID)").json()
            #expect(kept["system_prompt"] as? String == "Review code.")
            #expect((kept["assistant"] as? [String: Any])?["name"] as? String == "Code reviewer")

            // The reply goes out with the copied instructions and settings, and the dashboard counts it.
            try await api.sendAndWait(Int64(conversationID), "hello")
            let sent = try #require(try await server.mockLastRequest())
            #expect(sent.contains("Review code.") && sent.contains(#""temperature":0.2"#))
            let page = try await api.request(.GET, "/admin")
            #expect(page.body.contains("Code reviewer</th>"), "the dashboard names the assistant")

            // Deleting the assistant keeps the conversation's copy and its name.
            #expect(try await api.request(.DELETE, "/api/assistants/\(id)").status == 204)
            let orphan = try await api.request(.GET, "/api/conversations/\(conversationID)").json()
            let reference = orphan["assistant"] as? [String: Any]
            #expect(reference?["name"] as? String == "Code reviewer" && reference?["id"] == nil)
            #expect(try await api.request(.GET, "/api/assistants/\(id)").status == 404)
        }
    }

    @Test func sharingDecidesWhoSeesUsesAndChanges() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            let (_, admin) = try await server.signUp("admin@example.com")
            let (_, author) = try await server.signUp("author@example.com")
            let (_, member) = try await server.signUp("member@example.com")
            let (_, outsider) = try await server.signUp("outsider@example.com")
            let hidden = try #require(try await Self.make(author, ["name": "Hidden"])["id"] as? Int)
            for path in ["/api/assistants/\(hidden)"] {
                #expect(try await member.request(.GET, path).status == 404)
                #expect(try await member.request(.PATCH, path, json: ["name": "Mine now"]).status == 404)
                #expect(try await member.request(.DELETE, path).status == 404)
            }
            #expect(try await member.request(.POST, "/api/assistants/\(hidden)/duplicate").status == 404)
            #expect(
                try await member.request(.POST, "/api/conversations", json: ["assistant_id": hidden]).status == 404)

            let open = try #require(
                try await Self.make(author, ["name": "Open", "visibility": "everyone"])["id"] as? Int)
            let seen = try await member.request(.GET, "/api/assistants").json()["data"] as? [[String: Any]] ?? []
            #expect(seen.map { $0["name"] as? String } == ["Open"])
            #expect(seen.first?["can_change"] as? Bool == false)
            let refused = try await member.request(.PATCH, "/api/assistants/\(open)", json: ["name": "Taken"])
            #expect(refused.status == 403 && refused.body.contains("read_only"))
            #expect(try await member.request(.DELETE, "/api/assistants/\(open)").status == 403)
            #expect(try await author.request(.GET, "/api/assistants/\(open)").json()["name"] as? String == "Open")
            let copy = try await member.request(.POST, "/api/assistants/\(open)/duplicate")
            #expect(copy.status == 201)
            #expect(
                try copy.json()["name"] as? String == "Open (copy)" && copy.json()["visibility"] as? String == "private"
            )
            #expect(try await member.request(.POST, "/api/conversations", json: ["assistant_id": open]).status == 201)
            // An admin may change anyone's.
            #expect(try await admin.request(.PATCH, "/api/assistants/\(open)", json: ["icon": "🤖"]).status == 200)

            // Shared with a group: its members see it, others do not.
            let groups = SQLiteGroupStore(database: try ParleyDatabase(directory: server.dataDirectory))
            let group = try await groups.createGroup(name: "Reviewers")
            let memberID = try #require(try await member.request(.GET, "/api/me").json()["id"] as? Int)
            try await groups.addMember(userID: Int64(memberID), groupID: group.id)
            let grouped = try #require(
                try await Self.make(author, ["name": "Team", "visibility": "groups", "group_ids": [group.id]])["id"]
                    as? Int)
            #expect(try await member.request(.GET, "/api/assistants/\(grouped)").status == 200)
            #expect(try await outsider.request(.GET, "/api/assistants/\(grouped)").status == 404)
        }
    }

    @Test func badAssistantsAreRefusedAndChangeNothing() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            let (_, api) = try await server.signUp("careful@example.com")
            let id = try #require(try await Self.make(api)["id"] as? Int)
            let cases: [([String: Any], Int, String)] = [
                (["name": ""], 422, "invalid_assistant"),
                (["name": String(repeating: "n", count: 101)], 422, "invalid_assistant"),
                (["icon": "robot"], 422, "invalid_assistant"),
                (["starters": ["a", "b", "c", "d", "e"]], 422, "invalid_assistant"),
                (["starters": [String(repeating: "s", count: 301)]], 422, "invalid_assistant"),
                (["model": "nope"], 422, "unknown_model"),
                (["settings": ["temperature": 9]], 422, "invalid_setting"),
                (["visibility": "groups"], 422, "invalid_assistant"),
                (["visibility": "world"], 400, "malformed_request"),
                (
                    ["instructions": String(repeating: "i", count: ChatService.maxSystemPromptLength + 1)], 422,
                    "system_prompt_too_long"
                ),
            ]
            for (extra, status, code) in cases {
                let made = try await api.request(.POST, "/api/assistants", json: Self.body(extra))
                #expect(made.status == status && made.body.contains(code), "\(extra.keys): \(made.status) \(made.body)")
                let changed = try await api.request(.PATCH, "/api/assistants/\(id)", json: extra)
                #expect(changed.status == status, "PATCH \(extra.keys): \(changed.status)")
            }
            let malformed = try await api.post("/api/assistants", body: #"{"name": "#)
            #expect(malformed.status == 400)
            let listed = try await api.request(.GET, "/api/assistants").json()["data"] as? [[String: Any]] ?? []
            #expect(
                listed.count == 1 && listed.first?["version"] as? Int == 1
                    && listed.first?["name"] as? String
                        == "Code reviewer"
            )
            let anonymous = try await APIClient(server: server, token: nil).request(.GET, "/api/assistants")
            #expect(anonymous.status == 401)
        }
    }

    @Test func theFormsMakeAnAssistantAndAConversationShowsItsStarters() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var (browser, api) = try await server.signUp("former@example.com")
            let refused = try await browser.post("/assistants", form: ["name": "", "model": "mock-fast"])
            #expect(refused.status == 422 && refused.body.contains("A name needs"))
            let made = try await browser.post(
                "/assistants",
                form: [
                    "name": "Support", "icon": "💬", "model": "mock-fast", "instructions": "Answer kindly.",
                    "starter[]": "Where is my order?", "visibility": "everyone", "temperature": "0.5",
                ])
            #expect(made.status == 303 && made.location == "/assistants")
            let list = try await browser.get("/assistants").body
            let id = try #require(list.firstMatch(of: /\/assistants\/(\d+)\/start/).map { String($0.1) })
            let started = try await browser.post("/assistants/\(id)/start", form: [:])
            let page = try await browser.get(try #require(started.location)).body
            #expect(page.contains(#"class="starter">Where is my order?</button>"#))
            #expect(page.contains(#"class="tag assistant""#))

            // The new-conversation form offers it, and a first message sent with it goes out with its instructions.
            #expect(try await browser.get("/c").body.contains(#"<option value="\#(id)">Support</option>"#))
            let sent = try await browser.post(
                "/c", form: ["assistant": id, "model": "mock-slow", "content": "Hello there"])
            let location = try #require(sent.location)
            let conversation = try await browser.get(location).body
            #expect(conversation.contains(#"class="tag assistant""#) && conversation.contains("Hello there"))
            let stored = try await api.request(
                .GET, "/api" + location.replacingOccurrences(of: "/c/", with: "/conversations/")
            )
            .json()
            #expect(stored["system_prompt"] as? String == "Answer kindly." && stored["model"] as? String == "mock-fast")
            let bad = try await browser.post("/c", form: ["assistant": "x", "content": "Hi"])
            #expect(bad.status == 400)
        }
    }

    @Test func withUserSharingOffOnlyAdminsShare() async throws {
        try await withTestServer(configure: {
            $0.signup = .open; $0.userSharing = false
        }) { server in
            let (_, admin) = try await server.signUp("admin@example.com")
            let (_, member) = try await server.signUp("member@example.com")
            let refused = try await member.request(
                .POST, "/api/assistants", json: Self.body(["visibility": "everyone"]))
            #expect(refused.status == 422 && refused.body.contains("Only admins share"))
            let own = try #require(try await Self.make(member)["id"] as? Int)
            #expect(
                try await member.request(.PATCH, "/api/assistants/\(own)", json: ["visibility": "everyone"]).status
                    == 422)
            // An admin may share it for them.
            #expect(
                try await admin.request(.PATCH, "/api/assistants/\(own)", json: ["visibility": "everyone"]).status
                    == 200)
            let (_, reader) = try await server.signUp("reader@example.com")
            #expect(try await reader.request(.GET, "/api/assistants/\(own)").status == 200)
        }
    }

    @Test func anUploadedIconIsShownToItsUsersAndChangedByItsAuthorAlone() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var (browser, author) = try await server.signUp("author@example.com")
            let (_, reader) = try await server.signUp("reader@example.com")
            let id = try #require(try await Self.make(author, ["visibility": "everyone"])["id"] as? Int)
            let png = try Fixtures.image("gradient.png")
            #expect(try await reader.request(.GET, "/assistants/\(id)/icon").status == 404)
            let uploaded = try await browser.postMultipart(
                "/assistants/\(id)/icon", fields: [], files: [("icon.png", "image/png", png)], fileField: "icon",
                json: false)
            #expect(uploaded.status == 303 && uploaded.location == "/assistants/\(id)/edit")
            let shown = try await reader.request(.GET, "/assistants/\(id)/icon")
            #expect(shown.status == 200 && shown.headers.first(name: "content-type") == "image/png")
            #expect(
                try await reader.request(.GET, "/api/assistants/\(id)").json()["icon_url"] as? String
                    == "/assistants/\(id)/icon")
            #expect(try await browser.get("/assistants").body.contains(#"src="/assistants/\#(id)/icon""#))

            // Not an image, too large, or someone who may only use it: refused, and the icon stays.
            var put = HTTPClientRequest(url: server.baseURL + "/api/assistants/\(id)/icon")
            put.method = .PUT
            put.headers.add(name: "Authorization", value: "Bearer \(author.token ?? "")")
            put.headers.add(name: "Content-Type", value: "image/png")
            put.body = .bytes(ByteBuffer(string: "not an image"))
            let refused = try await server.client.execute(put, timeout: .seconds(10))
            #expect(refused.status.code == 422)
            put.body = .bytes(ByteBuffer(bytes: [UInt8](repeating: 0, count: AssistantService.maxIconBytes + 1)))
            #expect(try await server.client.execute(put, timeout: .seconds(10)).status.code == 413)
            #expect(try await reader.request(.DELETE, "/api/assistants/\(id)/icon").status == 403)
            #expect(try await reader.request(.GET, "/assistants/\(id)/icon").status == 200)

            // Its author removes it.
            #expect(try await author.request(.DELETE, "/api/assistants/\(id)/icon").status == 204)
            #expect(try await reader.request(.GET, "/assistants/\(id)/icon").status == 404)
        }
    }
}
