import AsyncHTTPClient
import Foundation
import GRDB
import NIOCore
import ParleyCore
import ParleyStore
import Testing

@testable import ParleyServer

/// The OpenAI-compatible endpoint against a live server and the mock upstream: every malformed, oversized, hostile and
/// unauthorised request gets its status in OpenAI's error shape and records nothing; a completion is recorded as the
/// API's, in no conversation, and counts against the budget like a reply.
@Suite("OpenAI-compatible endpoint")
struct OpenAICompatibleTests {
    /// A completion body for `model` with one user message.
    static func body(_ model: String = "mock-fast", _ extra: [String: Any] = [:]) -> [String: Any] {
        ["model": model, "messages": [["role": "user", "content": "Hello"]]].merging(extra) { $1 }
    }

    /// The rows of `api_completions` as (status, model, completion tokens).
    static func records(_ server: TestServer) async throws -> [String] {
        try await ParleyDatabase(directory: server.dataDirectory).pool.read { db in
            try Row.fetchAll(db, sql: "SELECT status, model, completion_tokens FROM api_completions ORDER BY id").map {
                "\($0[0] as String) \($0[1] as String) \($0[2] as Int)"
            }
        }
    }

    @Test func badRequestsGetTheirStatusInOpenAIsShapeAndRecordNothing() async throws {
        try await withTestServer { server in
            let (_, api) = try await server.signUp("scripts@example.com")
            let key = try await APIKeyTests.makeKey(api).text
            let client = APIClient(server: server, token: key)
            let cases: [(String, String, String, Int, String)] = [
                ("not JSON", "{\"model\":", "application/json", 400, "malformed_request"),
                ("a form", "model=mock-fast", "application/x-www-form-urlencoded", 415, "unsupported_media_type"),
                ("no messages", #"{"model":"mock-fast","messages":[]}"#, "application/json", 400, "invalid_request"),
                (
                    "no model", #"{"messages":[{"role":"user","content":"Hi"}]}"#, "application/json", 400,
                    "malformed_request"
                ),
                (
                    "a tool's message", #"{"model":"mock-fast","messages":[{"role":"tool","content":"x"}]}"#,
                    "application/json", 400, "invalid_request"
                ),
                (
                    "two choices", #"{"model":"mock-fast","n":2,"messages":[{"role":"user","content":"Hi"}]}"#,
                    "application/json", 400, "invalid_request"
                ),
                (
                    "a hot temperature",
                    #"{"model":"mock-fast","temperature":2.5,"messages":[{"role":"user","content":"Hi"}]}"#,
                    "application/json", 400, "invalid_request"
                ),
                (
                    "five stops",
                    #"{"model":"mock-fast","stop":["a","b","c","d","e"],"messages":[{"role":"user","content":"Hi"}]}"#,
                    "application/json", 400, "invalid_request"
                ),
                (
                    "zero tokens",
                    #"{"model":"mock-fast","max_tokens":0,"messages":[{"role":"user","content":"Hi"}]}"#,
                    "application/json", 400, "invalid_request"
                ),
                (
                    "an image by address",
                    #"{"model":"mock-fast","messages":[{"role":"user","content":[{"type":"image_url","#
                        + #""image_url":{"url":"http://169.254.169.254/latest"}}]}]}"#, "application/json", 400,
                    "invalid_request"
                ),
                (
                    "an image that is not one",
                    #"{"model":"mock-fast","messages":[{"role":"user","content":[{"type":"image_url","#
                        + #""image_url":{"url":"data:image/png;base64,PHNjcmlwdD4="}}]}]}"#, "application/json", 400,
                    "invalid_request"
                ),
                (
                    "an unknown model", #"{"model":"gpt-nope","messages":[{"role":"user","content":"Hi"}]}"#,
                    "application/json", 404, "model_not_found"
                ),
                (
                    "a text of 30 MB",
                    "{\"model\":\"mock-fast\",\"x\":\"" + String(repeating: "a", count: 30 << 20)
                        + "\"}", "application/json", 413, "too_large"
                ),
            ]
            for (label, text, contentType, status, code) in cases {
                let answer = try await client.post("/v1/chat/completions", body: text, contentType: contentType)
                #expect(answer.status == status, "\(label): \(answer.status) \(answer.body.prefix(300))")
                let error = try answer.json()["error"] as? [String: Any]
                #expect(error?["code"] as? String == code, "\(label): \(answer.body.prefix(300))")
                #expect(error?["type"] is String && error?["message"] is String, "\(label)")
                #expect(answer.headers.first(name: "content-type") == "application/json", "\(label)")
            }
            #expect(try await Self.records(server) == [])

            // Without a key, with a revoked or made-up one, or with a session's key on a page.
            let anonymous = try await APIClient(server: server, token: nil).request(.GET, "/v1/models")
            #expect(anonymous.status == 401 && anonymous.body.contains("\"type\":\"authentication_error\""))
            let madeUp = try await APIClient(server: server, token: "pk-" + String(repeating: "x", count: 43))
                .request(.POST, "/v1/chat/completions", json: Self.body())
            #expect(madeUp.status == 401 && madeUp.body.contains("invalid_api_key"))
            // A session token works too (a signed-in script), and lists the same models.
            #expect(try await api.request(.GET, "/v1/models").status == 200)
            #expect(try await Self.records(server) == [])
        }
    }

    @Test func aCompletionIsRecordedAsTheAPIsInNoConversation() async throws {
        try await withTestServer(mockTokens: 12) { server in
            let (_, api) = try await server.signUp("recorded@example.com")
            let key = try await APIKeyTests.makeKey(api)
            let client = APIClient(server: server, token: key.text)
            let answer = try await client.request(.POST, "/v1/chat/completions", json: Self.body())
            #expect(answer.status == 200, "\(answer.body)")
            let json = try answer.json()
            #expect(json["object"] as? String == "chat.completion")
            let usage = try #require(json["usage"] as? [String: Any])
            #expect(usage["completion_tokens"] as? Int == 12)
            #expect(try await Self.records(server) == ["complete mock-fast 12"])
            let keyID = try await ParleyDatabase(directory: server.dataDirectory).pool.read { db in
                try Int64.fetchOne(db, sql: "SELECT key_id FROM api_completions")
            }
            #expect(keyID == key.id)
            let rollup = try ParleyDatabase(directory: server.dataDirectory).pool.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT source, requests, input_tokens + output_tokens, output_tokens FROM usage_daily")
            }
            #expect(rollup.count == 1 && rollup.first?[0] == "api" && rollup.first?[1] == 1 && rollup.first?[3] == 12)
            #expect((rollup.first?[2] as Int?) == (usage["total_tokens"] as? Int))
            // The dashboard tells it apart from chat.
            let dashboard = try await api.request(.GET, "/admin").body
            #expect(dashboard.contains("Through the API</dt><dd>1 completions"), "\(dashboard.prefix(0))")
            #expect(try await api.conversations().isEmpty)
        }
    }

    @Test func aBudgetedUserRunsOneReplyOrCompletionAtATime() async throws {
        try await withTestServer(mockTokens: 40, mockDelayMilliseconds: 25) { server in
            let (_, api) = try await server.signUp("budgeted@example.com")
            let key = try await APIKeyTests.makeKey(api).text
            let store = SQLiteAccountStore(database: try ParleyDatabase(directory: server.dataDirectory))
            let user = try #require(try await api.request(.GET, "/api/me").json()["id"] as? Int)
            try await store.setMonthlyBudget(1_000_000, userID: Int64(user))
            // A reply streams for about a second: a completion asked meanwhile is refused, as a second reply would be.
            let conversation = try await api.createConversation()
            #expect(try await api.send(conversation, "a long one").status == 202)
            let refused = try await APIClient(server: server, token: key)
                .request(.POST, "/v1/chat/completions", json: Self.body())
            #expect(refused.status == 409 && refused.body.contains("budget_reply_running"), "\(refused.body)")
            #expect(try await Self.records(server) == [])
        }
    }

    @Test func anUpstreamThatFailsBeforeTextKeepsItsStatusWholeOrStreamed() async throws {
        try await withTestServer { server in
            let (_, api) = try await server.signUp("unlucky@example.com")
            for stream in [false, true] {
                let failed = try await api.request(
                    .POST, "/v1/chat/completions", json: Self.body("mock-500", ["stream": stream]))
                #expect(failed.status == 502, "stream \(stream): \(failed.status) \(failed.body)")
                #expect(failed.body.contains("provider_overloaded"))
                // Garbage after some text: a whole answer fails; a stream ends with the error in place of `[DONE]`.
                let garbled = try await api.request(
                    .POST, "/v1/chat/completions", json: Self.body("mock-garbage", ["stream": stream]))
                #expect(garbled.status == (stream ? 200 : 502), "\(garbled.body)")
                #expect(garbled.body.contains("\"code\":\"upstream_malformed\""))
                #expect(!garbled.body.contains("[DONE]"))
            }
            let records = try await Self.records(server)
            #expect(records.filter { $0.hasPrefix("error mock-500 0") }.count == 2, "\(records)")
            #expect(records.filter { $0.hasPrefix("error mock-garbage") }.count == 2, "\(records)")
        }
    }

    @Test func aCallerThatLeavesBeforeTheFirstTokenClosesTheUpstreamRequest() async throws {
        // The mock waits two seconds before its first token; the caller gives up after a fifth of one.
        try await withTestServer(mockFirstTokenMilliseconds: 2_000) { server in
            let (_, api) = try await server.signUp("impatient@example.com")
            for stream in [true, false] {
                let before = try await server.mockStats().aborted
                var request = HTTPClientRequest(url: server.baseURL + "/v1/chat/completions")
                request.method = .POST
                request.headers.add(name: "Authorization", value: "Bearer \(api.token ?? "")")
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(
                    ByteBuffer(
                        bytes: try JSONSerialization.data(withJSONObject: Self.body("mock-fast", ["stream": stream]))))
                await #expect(throws: (any Error).self) {
                    _ = try await server.client.execute(request, timeout: .milliseconds(200))
                }
                let after = try await server.waitForMock(timeout: .seconds(5)) { $0.aborted > before }
                #expect(after.aborted == before + 1, "stream \(stream)")
            }
            #expect(try await Self.records(server) == ["stopped mock-fast 0", "stopped mock-fast 0"])
        }
    }
}
