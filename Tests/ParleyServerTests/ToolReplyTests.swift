import Foundation
import ParleyCore
import ParleyServer
import Testing

/// Replies with tools end to end: a real `parley serve` in this process, the mock upstream's `mock-tools` model in each
/// vendor's wire format, and a real MCP server (Tests/MCP/tool_server.py, the official Python SDK) over stdio. A reply
/// asks for calls, Parley runs them and sends their results back, and the model answers from them; calls run at once,
/// a tool's error reaches the model, Stop cancels a running call on the server, a call that asks first waits for
/// Allow or Deny, and the step limit's last call is offered no tool.
@Suite("Tool replies", .serialized)
struct ToolReplyTests {
    /// The repository's `.venv-test` Python and the MCP test server.
    static let python = TestServer.repositoryRoot + "/.venv-test/bin/python"
    static let script = TestServer.repositoryRoot + "/Tests/MCP/tool_server.py"

    /// A server whose models answer with `mock-tools` in each wire format and whose MCP server `t` runs the test tools
    /// (`lookup` asks first); `cancelLog` is where the MCP server notes the calls it saw cancelled.
    static func withToolServer(
        maxSteps: Int = 8, _ body: (TestServer, _ cancelLog: String) async throws -> Void
    ) async throws {
        let folder = try makeTempDirectory()
        let cancelLog = folder + "/cancelled.log"
        try await withTestServer(configure: { settings in
            let base = (settings.environment["OPENAI_BASE_URL"] ?? "").replacingOccurrences(of: "/v1", with: "")
            settings.environment["MOCK_KEY"] = "test-key"
            settings.signup = .open
            settings.generation.maxToolSteps = maxSteps
            settings.generation.modelTitles = false
            settings.toolTimeout = .seconds(20)
            let config = folder + "/parley.json"
            try Data(
                """
                {"providers": [{"id": "claude", "kind": "anthropic", "base_url": "\(base)", "api_key_env": "MOCK_KEY"},
                               {"id": "gem", "kind": "gemini", "base_url": "\(base)", "api_key_env": "MOCK_KEY"}],
                 "models": [
                   {"id": "tools-openai", "provider": "openai", "upstream_id": "mock-tools", "tools": true},
                   {"id": "tools-anthropic", "provider": "claude", "upstream_id": "mock-tools", "tools": true},
                   {"id": "tools-gemini", "provider": "gem", "upstream_id": "mock-tools", "tools": true}
                 ],
                 "mcp_servers": [{"id": "t", "name": "Test tools", "transport": "stdio",
                                  "command": ["\(python)", "\(script)", "stdio"], "env": {"MCP_CANCEL_LOG": "\(cancelLog)"},
                                  "tools": {"lookup": {"confirm": true}}}]}
                """.utf8
            ).write(to: URL(fileURLWithPath: config))
            settings.providerConfigPath = config
        }) { server in
            // The first account is the admin, whose tools page says when the MCP server is connected.
            var admin = server.browser()
            _ = try await admin.signUp("admin@example.com")
            #expect(
                try await poll(within: .seconds(30)) {
                    try await admin.get("/admin/tools").body.contains("data-connected=\"true\"")
                })
            try await body(server, cancelLog)
        }
    }

    /// Sends `content` in a new conversation of `model` and returns the conversation, the API client and the events
    /// of the reply up to its `done`.
    static func ask(
        _ server: TestServer, _ content: String, model: String = "tools-openai", email: String
    ) async throws -> (Int64, APIClient, [ReceivedEvent]) {
        let (_, api) = try await server.signUp(email)
        let conversation = try await api.createConversation(model: model)
        let events = try await api.events(conversation)
        #expect(try await api.send(conversation, content).status == 202)
        return (conversation, api, try await events.collect(timeout: .seconds(60)) { $0.name == "done" })
    }

    /// The conversation's reply, once it has ended.
    static func reply(_ api: APIClient, _ conversation: Int64) async throws -> [String: Any] {
        try #require(
            try await api.lastMessage(of: conversation, within: .seconds(60)) {
                $0?["role"] as? String == "assistant" && $0?["status"] as? String != "streaming"
            })
    }

    @Test(
        "in each vendor's format the model's call runs on the MCP server and the model answers from its result",
        arguments: ["tools-openai", "tools-anthropic", "tools-gemini"])
    func oneCall(model: String) async throws {
        try await Self.withToolServer { server, _ in
            let (conversation, api, events) = try await Self.ask(
                server, #"call t__add {"a": 2, "b": 3}"#, model: model, email: "\(model)@example.com")
            let call = try #require(events.first { $0.name == "tool_call" })
            #expect(call.json["tool"] as? String == "t__add")
            let result = try #require(events.first { $0.name == "tool_result" })
            #expect(result.json["ok"] as? Bool == true && result.json["summary"] as? String == "5")
            let reply = try await Self.reply(api, conversation)
            #expect(reply["status"] as? String == "complete")
            #expect(reply["content"] as? String == "The tool said: 5")
            let steps = try #require(reply["tool_steps"] as? [[String: Any]])
            #expect(steps.count == 1 && steps.first?["status"] as? String == "done")
            #expect(((reply["usage"] as? [String: Any])?["prompt_tokens"] as? Int ?? 0) > 0)
        }
    }

    @Test("calls asked together run together, and a tool's error goes back to the model, which goes on")
    func parallelAndFailing() async throws {
        try await Self.withToolServer { server, _ in
            let (conversation, api, events) = try await Self.ask(
                server, "call t__add {\"a\": 2, \"b\": 3}\ncall t__add {\"a\": 4, \"b\": 3}\ncall t__fail",
                email: "parallel@example.com")
            #expect(events.filter { $0.name == "tool_call" }.count == 3)
            #expect(events.filter { $0.name == "tool_result" }.count == 3)
            let reply = try await Self.reply(api, conversation)
            let content = try #require(reply["content"] as? String)
            #expect(content.hasPrefix("The tool said: 5; 7; Error: "), "\(content)")
            #expect(reply["status"] as? String == "complete")
            let steps = try #require(reply["tool_steps"] as? [[String: Any]])
            let failed = steps.filter { ($0["result"] as? [String: Any])?["is_error"] as? Bool == true }
            #expect(steps.count == 3 && failed.count == 1)
        }
    }

    @Test("a stream that joins after a reply with tools ended gets each call and how it ended, then the done")
    func lateStreamGetsTheCalls() async throws {
        try await Self.withToolServer { server, _ in
            let (_, api) = try await server.signUp("late@example.com")
            let conversation = try await api.createConversation(model: "tools-openai")
            let sent = try await api.send(conversation, "call t__add {\"a\": 2, \"b\": 3}\ncall t__fail")
            let replyID = try #require(try sent.json()["assistant_message_id"] as? Int)
            #expect(try await Self.reply(api, conversation)["status"] as? String == "complete")
            // Resuming from the reply's first event, as a page drawn while it ran does, once its channel is gone.
            let events = try await api.events(conversation, lastEventID: "\(replyID)0000000").untilDone()
            #expect(events.map(\.name) == ["tool_call", "tool_result", "tool_call", "tool_result", "done"])
            let results = events.filter { $0.name == "tool_result" }
            #expect(results.map { $0.json["status"] as? String } == ["ok", "failed"])
            #expect(results.map { $0.json["tool"] as? String } == ["t__add", "t__fail"])
            #expect(events.first?.json["arguments"] as? String == #"{"a": 2, "b": 3}"#)
        }
    }

    @Test("Stop during a tool call cancels it on the MCP server and keeps what was done")
    func stopDuringACall() async throws {
        try await Self.withToolServer { server, cancelLog in
            let (_, api) = try await server.signUp("stopper@example.com")
            let conversation = try await api.createConversation(model: "tools-openai")
            let events = try await api.events(conversation)
            _ = try await api.send(conversation, #"call t__sleep {"seconds": 30}"#)
            _ = try await events.collect { $0.name == "tool_call" }
            // The server notes the call's start; Stop then cancels it there.
            #expect(
                try await poll(within: .seconds(20)) {
                    (try? String(contentsOfFile: cancelLog, encoding: .utf8))?.contains("started") == true
                })
            let stopped = ContinuousClock.now
            #expect(try await api.request(.POST, "/api/conversations/\(conversation)/stop").status == 204)
            let reply = try await Self.reply(api, conversation)
            #expect(stopped.duration(to: .now) < .seconds(10))
            #expect(reply["status"] as? String == "stopped")
            #expect((reply["tool_steps"] as? [[String: Any]])?.first?["status"] as? String == "stopped")
            #expect(
                try await poll(within: .seconds(10)) {
                    (try? String(contentsOfFile: cancelLog, encoding: .utf8))?.contains("cancelled") == true
                })
        }
    }

    @Test("a call that asks first waits for Allow, then runs; Deny answers the model that it was not allowed")
    func confirmation() async throws {
        try await Self.withToolServer { server, _ in
            for allow in [true, false] {
                let (_, api) = try await server.signUp("asker-\(allow)@example.com")
                var browser = server.browser()
                _ = try await browser.signIn("asker-\(allow)@example.com")
                let conversation = try await api.createConversation(model: "tools-openai")
                let events = try await api.events(conversation)
                _ = try await api.send(conversation, #"call t__lookup {"key": "ada"}"#)
                let call = try #require(try await events.collect { $0.name == "tool_call" }.last)
                #expect(call.json["awaiting_confirmation"] as? Bool == true)
                let callID = try #require(call.json["call_id"] as? String)
                let page = try await browser.get("/c/\(conversation)").body
                #expect(page.contains("formaction=\"/c/\(conversation)/tools/\(callID)\""))
                let answered = try await browser.post(
                    "/c/\(conversation)/tools/\(callID)", form: ["decision": allow ? "allow" : "deny"])
                #expect(answered.status == 303)
                let reply = try await Self.reply(api, conversation)
                let content = try #require(reply["content"] as? String)
                let expected = allow ? "Ada Lovelace" : "The tool said: Error: The user did not allow this call."
                #expect(content.contains(expected), "\(content)")
                let step = try #require((reply["tool_steps"] as? [[String: Any]])?.first)
                #expect(step["status"] as? String == (allow ? "done" : "denied"))
                #expect(
                    try await browser.post("/c/\(conversation)/tools/\(callID)", form: ["decision": "allow"]).status
                        == 404)
            }
        }
    }

    @Test("a conversation that turns the server off is offered none of its tools; an unknown server is refused")
    func serversTurnedOff() async throws {
        try await Self.withToolServer { server, _ in
            let (_, api) = try await server.signUp("quiet@example.com")
            let conversation = try await api.createConversation(model: "tools-openai")
            let path = "/api/conversations/\(conversation)"
            let unknown = try await api.request(.PATCH, path, json: ["tool_servers": ["nope"]])
            #expect(unknown.status == 422 && unknown.body.contains("unknown_tool_server"))
            let off = try await api.request(.PATCH, path, json: ["tool_servers": [String]()])
            let offServers = try off.json()["tool_servers"] as? [String]
            #expect(off.status == 200 && offServers == [])
            let events = try await api.events(conversation)
            _ = try await api.send(conversation, #"call t__add {"a": 2, "b": 3}"#)
            let ended = try await events.collect(timeout: .seconds(60)) { $0.name == "done" }
            #expect(!ended.contains { $0.name == "tool_call" })
            let reply = try await Self.reply(api, conversation)
            #expect((reply["tool_steps"] as? [[String: Any]])?.isEmpty ?? true)
            let on = try await api.request(.PATCH, path, json: ["tool_servers": ["t"]])
            let onServers = try on.json()["tool_servers"] as? [String]
            #expect(onServers == ["t"])
        }
    }

    @Test("the admin page turns a tool off, makes one ask first, and turns a server off for new conversations")
    func adminChoices() async throws {
        try await Self.withToolServer { server, _ in
            var admin = server.browser()
            _ = try await admin.signIn("admin@example.com")
            let off = try await admin.post("/admin/tools", form: ["server": "t", "tool": "add"])
            #expect(off.status == 303)
            #expect(try await admin.post("/admin/tools", form: ["server": "t", "tool": "nope"]).status == 404)
            #expect(try await admin.post("/admin/tools", form: ["server": "nope", "enabled": "1"]).status == 404)
            let (conversation, api, _) = try await Self.ask(
                server, #"call t__add {"a": 2, "b": 3}"#, email: "turned-off@example.com")
            #expect(
                try await Self.reply(api, conversation)["content"] as? String
                    == "The tool said: Error: The tool t__add is turned off.")
            _ = try await admin.post(
                "/admin/tools", form: ["server": "t", "tool": "add", "enabled": "1", "confirm": "1"])
            let (_, asker) = try await server.signUp("asked@example.com")
            let asked = try await asker.createConversation(model: "tools-openai")
            let events = try await asker.events(asked)
            _ = try await asker.send(asked, #"call t__add {"a": 2, "b": 3}"#)
            let call = try #require(try await events.collect { $0.name == "tool_call" }.last)
            #expect(call.json["awaiting_confirmation"] as? Bool == true)
            _ = try await asker.request(.POST, "/api/conversations/\(asked)/stop")
            _ = try await admin.post("/admin/tools", form: ["server": "t"])
            let page = try await admin.get("/admin/tools").body
            #expect(!page.contains("name=\"enabled\" value=\"1\" checked> On in conversations"))
            let fresh = try await asker.createConversation(model: "tools-openai")
            let quiet = try await asker.events(fresh)
            _ = try await asker.send(fresh, #"call t__add {"a": 2, "b": 3}"#)
            let ended = try await quiet.collect(timeout: .seconds(60)) { $0.name == "done" }
            #expect(!ended.contains { $0.name == "tool_call" })
        }
    }

    @Test("the step limit's last model call is offered no tool, and its calls are not run")
    func stepLimit() async throws {
        try await Self.withToolServer(maxSteps: 3) { server, _ in
            let before = try await server.mockStats().requests
            let (conversation, api, events) = try await Self.ask(
                server, "call t__add {\"a\": 1, \"b\": 1}\nalways call", email: "looper@example.com")
            #expect(events.filter { $0.name == "tool_call" }.count == 2)
            let reply = try await Self.reply(api, conversation)
            #expect(reply["status"] as? String == "complete")
            #expect((reply["tool_steps"] as? [[String: Any]])?.count == 2)
            #expect(try await server.mockStats().requests - before == 3)
        }
    }
}
