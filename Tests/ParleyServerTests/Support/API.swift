import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A JSON API client with a Bearer token.
struct APIClient: Sendable {
    let server: TestServer
    var token: String?

    /// Signs in through `POST /api/login`.
    static func signIn(_ server: TestServer, email: String, password: String = "correct horse battery") async throws
        -> APIClient
    {
        var client = APIClient(server: server, token: nil)
        let response = try await client.request(.POST, "/api/login", json: ["email": email, "password": password])
        guard response.status == 200, let token = try response.json()["token"] as? String else {
            throw TestFailure("API login answered \(response.status): \(response.body)")
        }
        client.token = token
        return client
    }

    /// A request with a JSON body (if given) and the Bearer token.
    func request(
        _ method: HTTPMethod, _ path: String, json: [String: Any]? = nil,
        headers: [(String, String)] = []
    ) async throws -> TestResponse {
        var request = HTTPClientRequest(url: server.baseURL + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json)))
        }
        let response = try await server.client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 32 << 20)
        return TestResponse(status: Int(response.status.code), headers: response.headers, body: String(buffer: body))
    }

    /// Creates a conversation; returns its id.
    func createConversation(model: String = "mock-fast", systemPrompt: String? = nil) async throws -> Int64 {
        var body: [String: Any] = ["model": model]
        if let systemPrompt { body["system_prompt"] = systemPrompt }
        let response = try await request(.POST, "/api/conversations", json: body)
        guard response.status == 201,
            let id = try response.json()["id"] as? Int64 ?? (try response.json()["id"] as? Int).map(Int64.init)
        else {
            throw TestFailure("creating a conversation answered \(response.status): \(response.body)")
        }
        return id
    }

    /// Sends a message (202); returns the JSON answer.
    func send(_ conversation: Int64, _ content: String, model: String? = nil, requestID: String? = nil) async throws
        -> TestResponse
    {
        var body: [String: Any] = ["content": content]
        if let model { body["model"] = model }
        if let requestID { body["request_id"] = requestID }
        return try await request(.POST, "/api/conversations/\(conversation)/messages", json: body)
    }

    /// The conversation's messages as JSON objects.
    func messages(_ conversation: Int64) async throws -> [[String: Any]] {
        let response = try await request(.GET, "/api/conversations/\(conversation)/messages?limit=200")
        guard response.status == 200 else { throw TestFailure("listing messages answered \(response.status)") }
        return try response.json()["data"] as? [[String: Any]] ?? []
    }

    /// Opens the conversation's event stream (optionally resuming), returning a reader.
    func events(_ conversation: Int64, lastEventID: String? = nil) async throws -> EventReader {
        var headers = [("Accept", "text/event-stream")]
        if let lastEventID { headers.append(("Last-Event-ID", lastEventID)) }
        var request = HTTPClientRequest(url: server.baseURL + "/c/\(conversation)/events")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await server.client.execute(request, timeout: .seconds(30))
        return EventReader(status: Int(response.status.code), headers: response.headers, body: response.body)
    }
}

extension TestServer {
    /// Signs an account up through the form and in through the API: its browser (with the session cookie) and its
    /// API client.
    func signUp(_ email: String) async throws -> (browser: Browser, api: APIClient) {
        var browser = browser()
        _ = try await browser.signUp(email)
        return (browser, try await APIClient.signIn(self, email: email))
    }
}
