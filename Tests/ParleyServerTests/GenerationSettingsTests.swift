import Foundation
import Testing

@testable import ParleyServer

/// A conversation's generation settings (temperature, top_p, max output tokens, stops, reasoning effort): set through
/// the JSON API or the settings form, checked against the model's ranges, stored, and sent upstream only when set, over
/// the model's defaults from `PARLEY_CONFIG`.
@Suite("Generation settings")
struct GenerationSettingsTests {
    /// A server whose models are the mock's, plus `tuned` (defaults and an output limit) and `claude-mock` (an
    /// Anthropic provider, so temperatures up to 1).
    static func withConfiguredServer(_ body: (TestServer) async throws -> Void) async throws {
        try await withTestServer(
            configure: { settings in
                settings.signup = .open
                let base = settings.environment["OPENAI_BASE_URL"] ?? ""
                let path = settings.dataDirectory + "/models.json"
                try Data(
                    """
                    {"providers": [{"id": "mock", "kind": "openai", "base_url": "\(base)", "api_key_env": "OPENAI_API_KEY"},
                                   {"id": "claude", "kind": "anthropic", "base_url": "\(base.dropLast(3))",
                                    "api_key_env": "OPENAI_API_KEY"}],
                     "models": [{"id": "tuned", "provider": "mock", "upstream_id": "mock-fast", "max_output_tokens": 500,
                                 "defaults": {"temperature": 0.2, "max_tokens": 100, "stop": ["END"]}},
                                {"id": "claude-mock", "provider": "claude", "upstream_id": "mock-fast"}]}
                    """.utf8
                ).write(to: URL(fileURLWithPath: path))
                settings.providerConfigPath = path
            }, body)
    }

    /// The last chat request the mock received, as a JSON object.
    static func lastRequest(_ server: TestServer) async throws -> [String: Any] {
        let text = try #require(try await server.mockLastRequest())
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func settingsSetThroughTheAPIAreSentInTheVendorsFormAndOnlyWhenSet() async throws {
        try await Self.withConfiguredServer { server in
            let (_, api) = try await server.signUp("tuner@example.com")
            let id = try await api.createConversation(model: "mock-fast")
            try await api.sendAndWait(id, "plain")
            let plain = try await Self.lastRequest(server)
            for name in ["temperature", "top_p", "max_tokens", "stop", "reasoning_effort"] {
                #expect(plain[name] == nil, "\(name) sent unset")
            }
            let settings: [String: Any] = [
                "temperature": 0.4, "top_p": 0.8, "max_tokens": 300, "stop": ["END", "STOP"],
                "reasoning_effort": "high",
            ]
            let patched = try await api.request(
                .PATCH, "/api/conversations/\(id)", json: ["system_prompt": "Be brief.", "settings": settings])
            #expect(patched.status == 200, "\(patched.body)")
            let stored = try #require(try patched.json()["settings"] as? [String: Any])
            #expect(NSDictionary(dictionary: stored) == NSDictionary(dictionary: settings))
            try await api.sendAndWait(id, "tuned")
            let sent = try await Self.lastRequest(server)
            #expect(sent["temperature"] as? Double == 0.4 && sent["top_p"] as? Double == 0.8)
            #expect(sent["max_tokens"] as? Int == 300 && sent["stop"] as? [String] == ["END", "STOP"])
            #expect(sent["reasoning_effort"] as? String == "high")
            let system = (sent["messages"] as? [[String: Any]])?.first
            #expect(system?["role"] as? String == "system" && system?["content"] as? String == "Be brief.")
        }
    }

    @Test func aModelsDefaultsApplyUnderTheConversationsOwnAndAnthropicGetsAThinkingBudget() async throws {
        try await Self.withConfiguredServer { server in
            let (_, api) = try await server.signUp("defaults@example.com")
            let tuned = try await api.createConversation(model: "tuned")
            try await api.sendAndWait(tuned, "defaults")
            let defaults = try await Self.lastRequest(server)
            #expect(defaults["temperature"] as? Double == 0.2 && defaults["max_tokens"] as? Int == 100)
            #expect(defaults["stop"] as? [String] == ["END"])
            let own = try await api.request(
                .PATCH, "/api/conversations/\(tuned)", json: ["settings": ["temperature": 0.9]])
            #expect(own.status == 200)
            try await api.sendAndWait(tuned, "own")
            let mixed = try await Self.lastRequest(server)
            #expect(mixed["temperature"] as? Double == 0.9 && mixed["max_tokens"] as? Int == 100)
            // Past the model's output limit: refused, and what was stored stays.
            let tooMany = try await api.request(
                .PATCH, "/api/conversations/\(tuned)", json: ["settings": ["max_tokens": 501]])
            #expect(tooMany.status == 422 && tooMany.body.contains("1 to 500"), "\(tooMany.body)")

            let claude = try await api.createConversation(model: "claude-mock")
            let hot = try await api.request(
                .PATCH, "/api/conversations/\(claude)", json: ["settings": ["temperature": 1.5]])
            #expect(hot.status == 422 && hot.body.contains("0 to 1"), "\(hot.body)")
            let effort = try await api.request(
                .PATCH, "/api/conversations/\(claude)", json: ["settings": ["reasoning_effort": "low"]])
            #expect(effort.status == 200)
            try await api.sendAndWait(claude, "think")
            let sent = try await Self.lastRequest(server)
            #expect(sent["thinking"] as? NSDictionary == ["type": "enabled", "budget_tokens": 1_024])
            #expect(sent["max_tokens"] as? Int == 8_192 + 1_024)
        }
    }

    @Test func badSettingsAreRefusedAndChangeNothing() async throws {
        try await Self.withConfiguredServer { server in
            var (browser, api) = try await server.signUp("careful@example.com")
            let id = try await api.createConversation(model: "mock-fast")
            #expect(
                try await api.request(.PATCH, "/api/conversations/\(id)", json: ["settings": ["top_p": 0.5]]).status
                    == 200)
            let forms: [[String: String]] = [
                ["temperature": "hot"], ["temperature": "2.5"], ["temperature": "-1"], ["top_p": "1.5"],
                ["max_tokens": "0"], ["max_tokens": "1.5"], ["reasoning_effort": "max"],
                ["stop": "a\nb\nc\nd\ne"], ["stop": String(repeating: "x", count: 101)],
            ]
            for form in forms {
                let refused = try await browser.post("/c/\(id)/settings", form: form)
                #expect(refused.status == 422, "\(form): \(refused.status)")
            }
            let json: [[String: Any]] = [
                ["temperature": "0.5"], ["top_p": 3], ["max_tokens": -5], ["reasoning_effort": "extreme"],
                ["stop": ["", "x"]],
            ]
            for settings in json {
                let refused = try await api.request(.PATCH, "/api/conversations/\(id)", json: ["settings": settings])
                #expect([400, 422].contains(refused.status), "\(settings): \(refused.status) \(refused.body)")
            }
            let conversation = try await api.request(.GET, "/api/conversations/\(id)").json()
            #expect((conversation["settings"] as? [String: Any])?["top_p"] as? Double == 0.5)
            #expect((conversation["settings"] as? [String: Any])?.count == 1, "\(conversation)")

            // Another user's conversation is not found; a visitor without a token is asked to sign in.
            let (_, other) = try await server.signUp("other@example.com")
            let foreign = try await other.request(
                .PATCH, "/api/conversations/\(id)", json: ["settings": ["temperature": 1]])
            #expect(foreign.status == 404)
            let anonymous = try await APIClient(server: server, token: nil).request(
                .PATCH, "/api/conversations/\(id)", json: ["settings": ["temperature": 1]])
            #expect(anonymous.status == 401)
            let after = try await api.request(.GET, "/api/conversations/\(id)").json()
            #expect((after["settings"] as? [String: Any])?.count == 1)
        }
    }
}
