import Foundation
import NIOHTTP1
import ParleyStore
import Testing

@testable import ParleyCore
@testable import ParleyServer

/// The prompt library: prompts made and changed by their author (or an admin), shared with no one, everyone or
/// groups, used and duplicated by whom they are shared with; "use" fills the variables in, and can start a
/// conversation; bad input is refused with nothing changed; the pages do all of it without script.
@Suite("Prompt library")
struct PromptLibraryTests {
    /// A valid prompt body, with `extra` over it.
    static func body(_ extra: [String: Any] = [:]) -> [String: Any] {
        ["title": "Translate", "command": "translate", "body": "Translate into {{language}}:\n\n{{ text }}"]
            .merging(extra) { $1 }
    }

    /// Makes a prompt through the API; returns its JSON.
    static func make(_ api: APIClient, _ extra: [String: Any] = [:]) async throws -> [String: Any] {
        let made = try await api.request(.POST, "/api/prompts", json: body(extra))
        #expect(made.status == 201, "\(made.body)")
        return try made.json()
    }

    /// The listed prompts' values of `key`.
    static func listed(_ api: APIClient, _ query: String = "", key: String = "command") async throws -> [String] {
        let list = try await api.request(.GET, "/api/prompts" + query).json()["data"] as? [[String: Any]] ?? []
        return list.compactMap { $0[key] as? String }
    }

    @Test func makeListChangeUseDuplicateAndDelete() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            let (_, api) = try await server.signUp("writer@example.com")
            let made = try await Self.make(api)
            let id = try #require(made["id"] as? Int)
            #expect(made["variables"] as? [String] == ["language", "text"])
            #expect(made["visibility"] as? String == "private" && made["can_change"] as? Bool == true)
            _ = try await Self.make(api, ["title": "Summarize", "command": "/sum", "body": "Summarize this."])
            #expect(try await Self.listed(api) == ["sum", "translate"])
            #expect(try await Self.listed(api, "?q=/tra") == ["translate"])
            #expect(try await Self.listed(api, "?q=SUMMAR") == ["sum"])
            let page = try await api.request(.GET, "/api/prompts?limit=1").json()
            #expect((page["data"] as? [Any])?.count == 1 && page["has_more"] as? Bool == true)

            let changed = try await api.request(.PATCH, "/api/prompts/\(id)", json: ["title": "Translator"])
            #expect(try changed.status == 200 && changed.json()["title"] as? String == "Translator")
            #expect(try changed.json()["body"] as? String == Self.body()["body"] as? String)

            let used = try await api.request(
                .POST, "/api/prompts/\(id)/use", json: ["variables": ["language": "French", "text": "{{hello}}"]])
            #expect(try used.status == 200 && used.json()["text"] as? String == "Translate into French:\n\n{{hello}}")

            let started = try await api.request(
                .POST, "/api/prompts/\(id)/use",
                json: ["variables": ["language": "German", "text": "Good morning"], "conversation": true])
            #expect(started.status == 201, "\(started.body)")
            let conversation = try #require((try started.json()["conversation"] as? [String: Any])?["id"] as? Int)
            let messages = try await api.messages(Int64(conversation))
            #expect(messages.first?["content"] as? String == "Translate into German:\n\nGood morning")

            let copy = try await api.request(.POST, "/api/prompts/\(id)/duplicate")
            #expect(copy.status == 201)
            #expect(try copy.json()["command"] as? String == "translate-2")
            #expect(try copy.json()["title"] as? String == "Translator (copy)")
            #expect(try await api.request(.DELETE, "/api/prompts/\(id)").status == 204)
            #expect(try await api.request(.GET, "/api/prompts/\(id)").status == 404)
            #expect(try await api.request(.DELETE, "/api/prompts/\(id)").status == 404)
            #expect(try await Self.listed(api) == ["sum", "translate-2"])
        }
    }

    @Test func sharingDecidesWhoSeesUsesAndChanges() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            let (_, admin) = try await server.signUp("admin@example.com")
            let (_, author) = try await server.signUp("author@example.com")
            let (_, member) = try await server.signUp("member@example.com")
            let (_, outsider) = try await server.signUp("outsider@example.com")
            let hidden = try #require(try await Self.make(author, ["command": "hidden"])["id"] as? Int)
            for (method, path) in [
                (HTTPMethod.GET, "/api/prompts/\(hidden)"), (.DELETE, "/api/prompts/\(hidden)"),
                (.POST, "/api/prompts/\(hidden)/duplicate"),
            ] {
                #expect(try await member.request(method, path).status == 404, "\(method) \(path)")
            }
            #expect(try await member.request(.PATCH, "/api/prompts/\(hidden)", json: ["title": "Mine"]).status == 404)
            let use = ["variables": ["language": "x", "text": "y"]]
            #expect(try await member.request(.POST, "/api/prompts/\(hidden)/use", json: use).status == 404)
            #expect(try await Self.listed(member).isEmpty)
            // An admin sees every prompt.
            #expect(try await admin.request(.GET, "/api/prompts/\(hidden)").status == 200)

            let open = try #require(
                try await Self.make(author, ["command": "open", "visibility": "everyone"])["id"] as? Int)
            let seen = try await member.request(.GET, "/api/prompts").json()["data"] as? [[String: Any]] ?? []
            #expect(seen.map { $0["command"] as? String } == ["open"])
            #expect(seen.first?["can_change"] as? Bool == false && seen.first?["mine"] as? Bool == false)
            let refused = try await member.request(.PATCH, "/api/prompts/\(open)", json: ["body": "Taken over"])
            #expect(refused.status == 403 && refused.body.contains("read_only"))
            #expect(try await member.request(.DELETE, "/api/prompts/\(open)").status == 403)
            let intact = try await author.request(.GET, "/api/prompts/\(open)").json()
            #expect(intact["body"] as? String == Self.body()["body"] as? String)
            #expect(try await member.request(.POST, "/api/prompts/\(open)/use", json: use).status == 200)
            let copy = try await member.request(.POST, "/api/prompts/\(open)/duplicate")
            let copied = try copy.json()
            #expect(copy.status == 201 && copied["command"] as? String == "open")
            #expect(copied["visibility"] as? String == "private" && copied["mine"] as? Bool == true)
            // An admin may change anyone's.
            #expect(try await admin.request(.PATCH, "/api/prompts/\(open)", json: ["title": "Opened"]).status == 200)
            #expect(try await author.request(.GET, "/api/prompts/\(open)").json()["title"] as? String == "Opened")

            // Shared with a group: its members see it, others do not.
            let groups = SQLiteGroupStore(database: try ParleyDatabase(directory: server.dataDirectory))
            let group = try await groups.createGroup(name: "Translators")
            let memberID = try #require(try await member.request(.GET, "/api/me").json()["id"] as? Int)
            try await groups.addMember(userID: Int64(memberID), groupID: group.id)
            let grouped = try await Self.make(
                author, ["command": "team", "visibility": "groups", "group_ids": [group.id]])
            let groupedID = try #require(grouped["id"] as? Int)
            #expect(grouped["group_ids"] as? [Int] == [Int(group.id)])
            #expect(try await member.request(.GET, "/api/prompts/\(groupedID)").status == 200)
            #expect(try await outsider.request(.GET, "/api/prompts/\(groupedID)").status == 404)
            #expect(try await Self.listed(outsider) == ["open"])
        }
    }

    @Test func badPromptsAndUsesAreRefusedAndChangeNothing() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            let (_, api) = try await server.signUp("careful@example.com")
            let id = try #require(try await Self.make(api)["id"] as? Int)
            _ = try await Self.make(api, ["command": "other"])
            let cases: [([String: Any], Int, String)] = [
                (["title": ""], 422, "invalid_prompt"),
                (["title": String(repeating: "t", count: 101)], 422, "invalid_prompt"),
                (["command": ""], 422, "invalid_prompt"),
                (["command": "Upper"], 422, "invalid_prompt"),
                (["command": "with space"], 422, "invalid_prompt"),
                (["command": String(repeating: "c", count: 33)], 422, "invalid_prompt"),
                (["body": " \n"], 422, "invalid_prompt"),
                (["body": String(repeating: "b", count: 20_001)], 422, "invalid_prompt"),
                (["visibility": "groups"], 422, "invalid_prompt"),
                (["visibility": "world"], 400, "malformed_request"),
                (["title": 7], 400, "malformed_request"),
            ]
            for (extra, status, code) in cases {
                let made = try await api.request(.POST, "/api/prompts", json: Self.body(extra))
                #expect(made.status == status && made.body.contains(code), "\(extra.keys): \(made.status) \(made.body)")
                let changed = try await api.request(.PATCH, "/api/prompts/\(id)", json: extra)
                #expect(changed.status == status, "PATCH \(extra.keys): \(changed.status)")
            }
            let taken = try await api.request(.POST, "/api/prompts", json: Self.body(["command": "other"]))
            #expect(taken.status == 422 && taken.body.contains("command_taken"))
            let clash = try await api.request(.PATCH, "/api/prompts/\(id)", json: ["command": "other"])
            #expect(clash.status == 422 && clash.body.contains("command_taken"))
            #expect(try await api.post("/api/prompts", body: #"{"title": "#).status == 400)
            #expect(try await api.post("/api/prompts/\(id)/use", body: #"{"variables": ["#).status == 400)
            let wrongType = try await api.post("/api/prompts", body: "title=x", contentType: "text/plain")
            #expect(wrongType.status == 415)
            let huge = try await api.post(
                "/api/prompts",
                body: #"{"title": "x", "command": "x", "body": ""# + String(repeating: "b", count: 2 << 20) + #""}"#)
            #expect(huge.status == 413)

            let uses: [([String: Any], String)] = [
                ([:], "missing_variables"),
                (["variables": ["language": "French"]], "missing_variables"),
                (["variables": ["language": "French", "text": "  "]], "missing_variables"),
                (["variables": ["language": "French", "text": "x", "tone": "dry"]], "unknown_variables"),
                (
                    [
                        "variables": [
                            "language": "x", "text": String(repeating: "w", count: ChatService.maxMessageLength),
                        ]
                    ],
                    "message_too_long"
                ),
            ]
            for (body, code) in uses {
                let used = try await api.request(.POST, "/api/prompts/\(id)/use", json: body)
                #expect(used.status == 422 && used.body.contains(code), "\(body): \(used.status) \(used.body)")
            }
            #expect(try await api.request(.POST, "/api/prompts/999999/use", json: [:]).status == 404)
            #expect(try await api.request(.GET, "/api/prompts?limit=0").status == 400)

            let listed = try await api.request(.GET, "/api/prompts/\(id)").json()
            #expect(listed["title"] as? String == "Translate" && listed["command"] as? String == "translate")
            let anonymous = APIClient(server: server, token: nil)
            #expect(try await anonymous.request(.GET, "/api/prompts").status == 401)
            #expect(try await anonymous.request(.POST, "/api/prompts", json: Self.body()).status == 401)
            #expect(try await anonymous.request(.POST, "/api/prompts/\(id)/use", json: [:]).status == 401)
            // A browser session without its CSRF token may not change anything.
            var browser = server.browser()
            _ = try await browser.signIn("careful@example.com")
            #expect(try await browser.post("/prompts/\(id)/delete", csrf: false).status == 403)
            #expect(try await api.request(.GET, "/api/prompts/\(id)").status == 200)
        }
    }

    @Test func aPersonalAPIKeyWorksOnThePromptRoutes() async throws {
        try await withTestServer { server in
            let (_, api) = try await server.signUp("scripter@example.com")
            let (_, key) = try await APIKeyTests.makeKey(api)
            let withKey = APIKeyTests.client(server, key: key)
            let id = try #require(try await Self.make(withKey)["id"] as? Int)
            #expect(try await Self.listed(withKey) == ["translate"])
            let used = try await withKey.request(
                .POST, "/api/prompts/\(id)/use", json: ["variables": ["language": "Dutch", "text": "hi"]])
            #expect(used.status == 200)
            #expect(try await withKey.request(.DELETE, "/api/prompts/\(id)").status == 204)
        }
    }

    @Test func noOneHasMoreThanTheMostPrompts() async throws {
        try await withTestServer { server in
            let (_, api) = try await server.signUp("hoarder@example.com")
            let userID = try #require(try await api.request(.GET, "/api/me").json()["id"] as? Int)
            let store = SQLitePromptStore(database: try ParleyDatabase(directory: server.dataDirectory))
            for number in 0..<PromptService.maxPromptsPerUser {
                _ = try await store.createPrompt(
                    Prompt(id: 0, authorID: Int64(userID), title: "P", command: "p\(number)", body: "Text"))
            }
            let refused = try await api.request(.POST, "/api/prompts", json: Self.body())
            #expect(refused.status == 422 && refused.body.contains("200 prompts"))
        }
    }

    @Test func thePagesMakeUseAndManagePromptsWithoutScript() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var (browser, api) = try await server.signUp("pages@example.com")
            #expect(try await browser.get("/c").body.contains(#"<a href="/prompts">Prompts</a>"#))
            let refused = try await browser.post("/prompts", form: ["title": "T", "command": "Bad!", "body": "x"])
            #expect(refused.status == 422 && refused.body.contains("A command needs") && refused.body.contains("Bad!"))
            let made = try await browser.post(
                "/prompts",
                form: [
                    "title": "Explain", "command": "/explain", "body": "Explain {{topic}} to a {{target reader}}.",
                    "visibility": "everyone",
                ])
            #expect(made.status == 303 && made.location == "/prompts")
            let list = try await browser.get("/prompts").body
            let id = try #require(list.firstMatch(of: /\/prompts\/(\d+)\/use/).map { String($0.1) })
            #expect(list.contains("/explain") && list.contains("Variables: topic, target reader"))

            let form = try await browser.get("/prompts/\(id)/use").body
            #expect(form.contains(#"name="variables[target reader]""#))
            let missing = try await browser.post("/prompts/\(id)/use", form: ["variables[topic]": "tides"])
            #expect(missing.status == 422 && missing.body.contains("“target reader”") && missing.body.contains("tides"))
            let started = try await browser.post(
                "/prompts/\(id)/use",
                form: ["variables[topic]": "tides", "variables[target reader]": "child", "model": "mock-fast"])
            #expect(started.status == 303)
            let location = try #require(started.location)
            let conversation = try #require(Int64(location.replacingOccurrences(of: "/c/", with: "")))
            #expect(try await api.messages(conversation).first?["content"] as? String == "Explain tides to a child.")

            let edit = try await browser.post(
                "/prompts/\(id)", form: ["title": "Explain simply", "command": "explain", "body": "Explain {{topic}}."])
            #expect(edit.status == 303)
            #expect(try await browser.get("/prompts/\(id)/edit").body.contains(#"value="Explain simply""#))
            let duplicated = try await browser.post("/prompts/\(id)/duplicate")
            #expect(duplicated.location?.hasSuffix("/edit") == true)
            #expect(try await browser.get("/prompts?q=simply").body.contains("Explain simply (copy)"))
            #expect(try await browser.post("/prompts/\(id)/delete").location == "/prompts")
            #expect(try await browser.get("/prompts/\(id)/use").status == 404)

            // A prompt without variables starts its conversation at once; another user may not edit a shared one.
            let plain = try #require(
                try await Self.make(api, ["command": "hi", "body": "Hello!", "visibility": "everyone"])["id"] as? Int)
            let direct = try await browser.post("/prompts/\(plain)/use")
            #expect(direct.status == 303 && direct.location?.hasPrefix("/c/") == true)
            var (reader, _) = try await server.signUp("reader@example.com")
            #expect(try await reader.get("/prompts").body.contains("shared with you"))
            #expect(try await reader.get("/prompts/\(plain)/edit").status == 403)
            #expect(
                try await reader.post("/prompts/\(plain)", form: ["title": "Mine", "command": "hi", "body": "x"]).status
                    == 403)
        }
    }

    @Test func variablesAreReadAndFilledAsWritten() throws {
        #expect(
            PromptText.variables(in: "{{a}} {{ b c }} {{a}} {{}} {{ }} {{x-y}} {{{d}}} {{é}}") == ["a", "b c", "d"])
        #expect(PromptText.variables(in: "{{" + String(repeating: "n", count: 41) + "}}").isEmpty)
        #expect(try PromptText.fill("{{{d}}} and {{ d }}", with: ["d": "{{x}}"], limit: 100) == "{{{x}}} and {{x}}")
        #expect(throws: PromptError.filledTooLong) {
            try PromptText.fill(String(repeating: "{{v}}", count: 1000), with: ["v": "long value"], limit: 5000)
        }
        #expect(PromptService.freeCommand(like: "a", taken: ["a", "a-2"]) == "a-3")
        let long = String(repeating: "c", count: 32)
        #expect(PromptService.freeCommand(like: long, taken: [long]) == String(repeating: "c", count: 30) + "-2")
    }
}
