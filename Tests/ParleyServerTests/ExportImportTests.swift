import Foundation
import Testing

@testable import ParleyServer

/// Downloads of one conversation or all of a user's data, and imports of Parley's and ChatGPT's files.
@Suite("Export and import")
struct ExportImportTests {
    /// A title with quotes, a line break and a header of its own, to prove the download name is safe.
    static let hostileTitle = "Trip \"plans\"\r\nSet-Cookie: x=1 / ünïcode"

    /// A ChatGPT `conversations.json`: the first conversation branches (an abandoned reply), holds a system node,
    /// a tool message, an empty reply and an image part; the second has no title.
    static let chatGPTFile = #"""
        [
          {
            "title": "Branching chat",
            "create_time": 1700000000.5,
            "update_time": 1700000500.25,
            "default_model_slug": "gpt-4o",
            "current_node": "a2",
            "mapping": {
              "root": {"id": "root", "message": null, "parent": null, "children": ["sys"]},
              "sys": {"id": "sys", "parent": "root", "children": ["u1"],
                      "message": {"author": {"role": "system"}, "create_time": null,
                                  "content": {"content_type": "text", "parts": ["You are ChatGPT."]}}},
              "u1": {"id": "u1", "parent": "sys", "children": ["a1", "a1b"],
                     "message": {"author": {"role": "user"}, "create_time": 1700000010,
                                 "content": {"content_type": "text", "parts": ["First question"]}}},
              "a1b": {"id": "a1b", "parent": "u1", "children": [],
                      "message": {"author": {"role": "assistant"}, "create_time": 1700000015,
                                  "content": {"content_type": "text", "parts": ["Abandoned answer"]}}},
              "a1": {"id": "a1", "parent": "u1", "children": ["u2"],
                     "message": {"author": {"role": "assistant"}, "create_time": 1700000020,
                                 "content": {"content_type": "text", "parts": ["First answer"]}}},
              "u2": {"id": "u2", "parent": "a1", "children": ["empty"],
                     "message": {"author": {"role": "user"}, "create_time": 1700000030,
                                 "content": {"content_type": "multimodal_text",
                                             "parts": [{"content_type": "image_asset_pointer", "asset_pointer": "file-service://x"}, "Look at this"]}}},
              "empty": {"id": "empty", "parent": "u2", "children": ["tool"],
                        "message": {"author": {"role": "assistant"}, "create_time": 1700000031,
                                    "content": {"content_type": "text", "parts": [""]}}},
              "tool": {"id": "tool", "parent": "empty", "children": ["code"],
                       "message": {"author": {"role": "tool", "name": "browser"}, "create_time": 1700000032,
                                   "content": {"content_type": "text", "parts": ["tool output"]}}},
              "code": {"id": "code", "parent": "tool", "children": ["a2"],
                       "message": {"author": {"role": "assistant"}, "create_time": 1700000033,
                                   "content": {"content_type": "code", "language": "python", "text": "print(1)"}}},
              "a2": {"id": "a2", "parent": "code", "children": [],
                     "message": {"author": {"role": "assistant"}, "create_time": 1700000040,
                                 "metadata": {"model_slug": "gpt-4o-mini", "finish_details": {"type": "stop"}},
                                 "content": {"content_type": "text", "parts": ["Final answer with **markdown**"]}}}
            }
          },
          {
            "title": null,
            "create_time": 1600000000,
            "update_time": null,
            "current_node": "q",
            "mapping": {
              "q": {"id": "q", "parent": null, "children": [],
                    "message": {"author": {"role": "user"}, "create_time": 1600000001,
                                "content": {"content_type": "text", "parts": ["Untitled question"]}}}
            }
          }
        ]
        """#

    @Test("export.md and export.json carry the conversation, as safe attachments whatever the title holds")
    func exportOneConversation() async throws {
        try await withTestServer(mockTokens: 3) { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let api = try await APIClient.signIn(server, email: "user@example.com")
            let id = try await api.createConversation(title: "Draft")
            #expect(try await browser.post("/c/\(id)/rename", form: ["title": Self.hostileTitle]).status == 303)
            try await api.sendAndWait(id, "Hello there")
            let conversation = try #require(try await api.conversations().first)

            let markdown = try await browser.get("/c/\(id)/export.md")
            #expect(markdown.status == 200)
            #expect(markdown.headers.first(name: "content-type") == "text/markdown; charset=utf-8")
            #expect(
                markdown.headers.first(name: "content-disposition")
                    == #"attachment; filename="trip-plans-set-cookie-x-1-n-code.md""#)
            #expect(markdown.headers["set-cookie"].allSatisfy { !$0.contains("x=1") })
            #expect(
                markdown.body == """
                    # Trip "plans" Set-Cookie: x=1 / ünïcode

                    - Model: mock-fast
                    - Created: \(try #require(conversation["created_at"] as? String))
                    - Updated: \(try #require(conversation["updated_at"] as? String))

                    ## You

                    Hello there

                    ## Assistant · mock-fast

                    Hello! This is

                    """)

            let json = try await browser.get("/c/\(id)/export.json")
            #expect(json.status == 200)
            #expect(json.headers.first(name: "content-type") == "application/json; charset=utf-8")
            #expect(
                json.headers.first(name: "content-disposition")
                    == #"attachment; filename="trip-plans-set-cookie-x-1-n-code.json""#)
            let document = try json.json()
            #expect(document["format"] as? String == "parley-export")
            #expect(document["version"] as? Int == 1)
            #expect(document["account"] == nil)
            let entries = try #require(document["conversations"] as? [[String: Any]])
            #expect(entries.count == 1)
            let exported = try #require(entries.first?["conversation"] as? [String: Any])
            #expect(exported["title"] as? String == Self.hostileTitle)
            #expect(exported["id"] as? Int == Int(id))
            let messages = try #require(entries.first?["messages"] as? [[String: Any]])
            #expect(messages.map { $0["role"] as? String } == ["user", "assistant"])
            #expect(messages.map { $0["content"] as? String } == ["Hello there", "Hello! This is"])
            #expect(messages.map { $0["status"] as? String } == ["complete", "complete"])
            #expect(messages.allSatisfy { ($0["attachments"] as? [Any])?.isEmpty == true })

            let untitled = try await api.createConversation(title: "ÜÜÜ")
            #expect(
                try await browser.get("/c/\(untitled)/export.md").headers.first(name: "content-disposition")
                    == #"attachment; filename="conversation-\#(untitled).md""#)
        }
    }

    @Test("export.json imported again creates an identical conversation, searchable, its replies regenerable")
    func roundTrip() async throws {
        try await withTestServer(mockTokens: 3) { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let api = try await APIClient.signIn(server, email: "user@example.com")
            let id = try await api.createConversation(title: "Round trip")
            _ = try await browser.post("/c/\(id)/settings", form: ["system_prompt": "Be terse."])
            try await api.sendAndWait(id, "What is a narwhal?")
            try await api.sendAndWait(id, "And a *unicorn*?")
            _ = try await browser.post("/c/\(id)/pin")
            _ = try await browser.post("/c/\(id)/archive")
            let original = try await browser.get("/c/\(id)/export.json")

            let imported = try await api.post("/settings/import", body: original.body)
            #expect(imported.status == 201)
            let created = try #require(try imported.json()["conversation_ids"] as? [Int])
            #expect(try imported.json()["imported"] as? Int == 1)
            #expect(created.count == 1 && created[0] != Int(id))
            let copy = try await browser.get("/c/\(created[0])/export.json")
            let copied = try Self.canonical(Self.withoutIDs(copy.json()))
            #expect(copied == (try Self.canonical(Self.withoutIDs(original.json()))))
            #expect(
                copied.contains(#""content":"What is a narwhal?""#) && copied.contains(#""pinned":true"#)
                    && copied.contains(#""archived":true"#) && copied.contains(#""system_prompt":"Be terse.""#))

            let found = try await browser.get(searchPath("narwhal"))
            #expect(SearchTests.resultLinks(found.body).count == 2)
            let regenerate = try await browser.post(
                "/c/\(created[0])/regenerate", headers: [("Accept", "application/json")])
            #expect(regenerate.status == 202)
        }
    }

    @Test("ChatGPT's conversations.json is flattened along the current branch, text messages only")
    func chatGPTImport() async throws {
        try await withTestServer { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let api = try await APIClient.signIn(server, email: "user@example.com")
            let response = try await api.post("/settings/import", body: Self.chatGPTFile)
            #expect(response.status == 201)
            let created = try #require(try response.json()["conversation_ids"] as? [Int]).map(Int64.init)
            #expect(created.count == 2)

            let conversations = try await api.conversations()
            #expect(ids(conversations) == created)
            #expect(conversations.map { $0["title"] as? String } == ["Branching chat", "Imported conversation"])
            #expect(conversations.map { $0["model"] as? String } == ["gpt-4o", "mock-fast"])
            #expect(
                conversations.map { $0["created_at"] as? String } == ["2023-11-14T22:13:20Z", "2020-09-13T12:26:40Z"])
            #expect(conversations.first?["updated_at"] as? String == "2023-11-14T22:21:40Z")

            let messages = try await api.messages(created[0])
            #expect(messages.map { $0["role"] as? String } == ["user", "assistant", "user", "assistant"])
            #expect(
                messages.map { $0["content"] as? String }
                    == ["First question", "First answer", "Look at this", "Final answer with **markdown**"])
            #expect(messages.map { $0["model"] as? String } == ["gpt-4o", "gpt-4o", "gpt-4o", "gpt-4o-mini"])
            #expect(messages.allSatisfy { $0["status"] as? String == "complete" })
            #expect(
                messages.map { $0["created_at"] as? String }
                    == ["2023-11-14T22:13:30Z", "2023-11-14T22:13:40Z", "2023-11-14T22:13:50Z", "2023-11-14T22:14:00Z"])
            #expect(try await api.messages(created[1]).map { $0["content"] as? String } == ["Untitled question"])
            let page = try await browser.get("/c/\(created[0])")
            #expect(page.body.contains("<strong>markdown</strong>"))
            #expect(!page.body.contains("Abandoned answer"))
            // Every branch is kept: the abandoned answer is the first version of the first reply.
            let all = try await api.branch(created[0], all: true)
            #expect(all.count == 5 && all.contains { $0["content"] as? String == "Abandoned answer" })
            #expect(messages[1]["sibling_index"] as? Int == 2 && messages[1]["sibling_count"] as? Int == 2)
        }
    }

    @Test(
        "the settings page's plain form imports a file without JavaScript; a bad file or a missing CSRF field stores nothing"
    )
    func formImport() async throws {
        try await withTestServer { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let api = try await APIClient.signIn(server, email: "user@example.com")
            let page = try await browser.get("/settings").body
            #expect(page.contains(#"action="/settings/import" enctype="multipart/form-data""#))
            let file = [(name: "conversations.json", type: "application/json", bytes: Array(Self.chatGPTFile.utf8))]
            let forged = try await browser.postMultipart(
                "/settings/import", fields: [], files: file, fileField: "file",
                json: false, csrf: false)
            #expect(forged.status == 403)
            let broken = try await browser.postMultipart(
                "/settings/import", fields: [],
                files: [(name: "x.json", type: "application/json", bytes: Array("{nope".utf8))],
                fileField: "file", json: false)
            #expect(broken.status == 422)
            #expect(try await api.conversations().isEmpty)

            let imported = try await browser.postMultipart(
                "/settings/import", fields: [], files: file, fileField: "file", json: false)
            #expect(imported.status == 303)
            #expect(imported.location == "/settings?imported=2")
            #expect(try await browser.get("/settings?imported=2").body.contains("Imported 2 conversations."))
            #expect(try await api.conversations().count == 2)
        }
    }

    @Test("malformed, foreign, oversized or partly bad files are refused whole with a clear message")
    func refusedImports() async throws {
        try await withTestServer { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let api = try await APIClient.signIn(server, email: "user@example.com")
            let good =
                #"{"title": "Good", "create_time": 1700000000, "current_node": "u", "mapping": {"u": {"parent": null, "message": {"author": {"role": "user"}, "content": {"content_type": "text", "parts": ["hi"]}}}}}"#
            let refused: [(String, String)] = [
                ("{not json", "The file is not valid JSON."),
                ("", "The file is neither a Parley export nor ChatGPT's conversations.json."),
                (#""a string""#, "The file is neither a Parley export nor ChatGPT's conversations.json."),
                ("[]", "The file holds no conversations."),
                (#"{"hello": 1}"#, "The file is not a Parley export: format is missing."),
                (
                    #"{"format": "other", "version": 1, "exported_at": "2025-01-01T00:00:00Z", "conversations": []}"#,
                    "The file is not a Parley export of version 1."
                ),
                (#"[{"title": "x"}]"#, "The file is not ChatGPT's conversations.json: 1 › mapping is missing."),
                (
                    "[\(good), \(good.replacingOccurrences(of: #""current_node": "u""#, with: #""current_node": "gone""#))]",
                    "Conversation 2 is broken: its current_node does not lead back to the root."
                ),
                (
                    "[\(good.replacingOccurrences(of: #""parent": null"#, with: #""parent": "u""#))]",
                    "Conversation 1 is broken: its current_node does not lead back to the root."
                ),
                (
                    "[\(good), \(good.replacingOccurrences(of: "1700000000", with: "1e20"))]",
                    "Conversation 2 has a date before 1970 or after 9999."
                ),
                (
                    "[\(good), \(good), \(good.replacingOccurrences(of: #"["hi"]"#, with: "7"))]",
                    "The file is not ChatGPT's conversations.json: 3 › mapping › u › message › content › parts has the wrong type."
                ),
            ]
            for (body, message) in refused {
                let response = try await api.post("/settings/import", body: body)
                #expect(response.status == 422, "\(body.prefix(40))")
                let error = try response.json()["error"] as? [String: Any]
                #expect(error?["code"] as? String == "invalid_import")
                #expect(error?["message"] as? String == message, "\(body.prefix(40))")
            }

            let wrongRole = try await api.post(
                "/settings/import", body: Self.parleyExport(replyRoles: ["assistant", "wizard"]))
            #expect(wrongRole.status == 422)
            #expect(
                try wrongRole.json()["error"].flatMap { $0 as? [String: Any] }?["message"] as? String
                    == "Conversation 2 has a message whose role is not system, user or assistant.")
            #expect(try await api.post("/settings/import", body: good, contentType: "text/plain").status == 415)
            var noToken = server.browser()
            noToken.cookies = browser.cookies
            #expect(
                try await noToken.send(
                    .POST, "/settings/import", headers: [("Content-Type", "application/json")],
                    body: "[\(good)]"
                ).status == 403)

            let padding = String(repeating: " ", count: ImportReader.maxBytes)
            let huge = try await api.post("/settings/import", body: "[\(good)]" + padding)
            #expect(huge.status == 413)
            #expect(try await api.conversations().isEmpty)

            let large = try await api.post(
                "/settings/import", body: "[\(good)]" + String(repeating: " ", count: 3 << 20))
            #expect(large.status == 201)
            #expect(try await api.conversations().map { $0["title"] as? String } == ["Good"])
        }
    }

    @Test("the settings page offers the whole-account download, which holds every conversation, archived ones too")
    func wholeAccountExport() async throws {
        try await withTestServer(mockTokens: 2, configure: { $0.signup = .open }) { server in
            var (browser, api) = try await server.signUp("user@example.com")
            let (_, otherAPI) = try await server.signUp("other@example.com")
            let first = try await api.createConversation(title: "First")
            let second = try await api.createConversation(title: "Second")
            try await api.sendAndWait(second, "archived words")
            _ = try await browser.post("/c/\(second)/archive")
            _ = try await otherAPI.createConversation(title: "Not yours")

            let settings = try await browser.get("/settings")
            #expect(settings.status == 200)
            #expect(settings.body.contains(#"<a href="/settings/export.json" download>"#))
            #expect(settings.body.contains(#"action="/settings/delete-account""#))
            let download = try await browser.get("/settings/export.json")
            #expect(download.status == 200)
            let day = Date().formatted(.iso8601.year().month().day())
            #expect(
                download.headers.first(name: "content-disposition")
                    == #"attachment; filename="parley-export-\#(day).json""#)
            let document = try download.json()
            #expect((document["account"] as? [String: Any])?["email"] as? String == "user@example.com")
            let entries = try #require(document["conversations"] as? [[String: Any]])
            #expect(
                entries.compactMap { ($0["conversation"] as? [String: Any])?["title"] as? String } == [
                    "First", "Second",
                ])
            #expect(
                entries.compactMap { (($0["conversation"] as? [String: Any])?["id"] as? Int).map(Int64.init) } == [
                    first, second,
                ])
            #expect((entries[1]["messages"] as? [[String: Any]])?.first?["content"] as? String == "archived words")
            #expect(!download.body.contains("Not yours"))
        }
    }

    @Test("another user's conversation is 404 for both downloads; signed out, the settings routes send to sign-in")
    func ownership() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var owner = server.browser()
            _ = try await owner.signUp("owner@example.com")
            let id = try await owner.createConversation(content: "private words")
            var intruder = server.browser()
            _ = try await intruder.signUp("intruder@example.com")
            #expect(try await intruder.get("/c/\(id)/export.md").status == 404)
            #expect(try await intruder.get("/c/\(id)/export.json").status == 404)
            #expect(try await intruder.get("/c/999999/export.json").status == 404)
            #expect(try await intruder.get("/settings/export.json").body.contains("private words") == false)
            var anonymous = server.browser()
            #expect(try await anonymous.get("/settings").location == "/login?next=/settings")
            #expect(try await anonymous.get("/settings/export.json").location == "/login?next=/settings/export.json")
            #expect(try await anonymous.get("/c/\(id)/export.md").location == "/login?next=/c/\(id)/export.md")
        }
    }

    /// A JSON object with every `id` key removed, at any depth, for comparing an import with its source.
    static func withoutIDs(_ object: [String: Any]) -> [String: Any] {
        var copy = object
        // Ids, and the ids that tie messages into a tree (the shape stays in `sibling_index` and `sibling_count`).
        for key in ["id", "parent_id", "current_leaf_id", "exported_at"] { copy[key] = nil }
        for (key, value) in copy {
            if let nested = value as? [String: Any] { copy[key] = withoutIDs(nested) }
            if let list = value as? [[String: Any]] { copy[key] = list.map(withoutIDs) }
        }
        return copy
    }

    /// JSON text with sorted keys, for comparing two JSON objects.
    static func canonical(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// A small Parley export, as the server writes it, with one exchange per conversation whose reply has the given
    /// role.
    static func parleyExport(replyRoles: [String]) -> String {
        let conversations = replyRoles.enumerated().map { index, role in
            """
            {"conversation":{"id":\(index + 1),"title":"Conversation \(index + 1)","model":"m","system_prompt":"","created_at":"2025-01-01T00:00:00Z","updated_at":"2025-01-01T00:00:00Z","pinned":false,"archived":false},
             "messages":[{"id":1,"role":"user","content":"q","status":"complete","model":"m","created_at":"2025-01-01T00:00:00Z","usage":{"prompt_tokens":0,"completion_tokens":0,"cost_usd":0,"estimated":false},"attachments":[]},
                         {"id":2,"role":"\(role)","content":"a","status":"complete","model":"m","created_at":"2025-01-01T00:00:00Z","usage":{"prompt_tokens":1,"completion_tokens":2,"cost_usd":0,"estimated":true},"attachments":[]}]}
            """
        }
        return #"{"format":"parley-export","version":1,"exported_at":"2025-01-01T00:00:00Z","conversations":["#
            + conversations.joined(separator: ",") + "]}"
    }
}
