import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

extension APIClient {
    /// Creates a conversation with a title; returns its id.
    func createConversation(title: String, model: String = "mock-fast") async throws -> Int64 {
        let response = try await request(.POST, "/api/conversations", json: ["title": title, "model": model])
        guard response.status == 201, let id = try response.json()["id"] as? Int else {
            throw TestFailure("creating a conversation answered \(response.status): \(response.body)")
        }
        return Int64(id)
    }

    /// Sends a message and waits until its reply is done.
    func sendAndWait(_ conversation: Int64, _ content: String) async throws {
        let sent = try await send(conversation, content)
        guard sent.status == 202, let reply = try sent.json()["assistant_message_id"] as? Int else {
            throw TestFailure("sending answered \(sent.status): \(sent.body)")
        }
        _ = try await events(conversation, lastEventID: "\(reply)0000000").untilDone()
    }

    /// The user's conversations as JSON objects (`?archived=1` for the archived ones).
    func conversations(archived: Bool = false) async throws -> [[String: Any]] {
        let response = try await request(.GET, "/api/conversations?limit=200" + (archived ? "&archived=1" : ""))
        guard response.status == 200 else { throw TestFailure("listing conversations answered \(response.status)") }
        return try response.json()["data"] as? [[String: Any]] ?? []
    }

    /// Posts a raw body (an import file) with the Bearer token.
    func post(_ path: String, body: String, contentType: String = "application/json") async throws -> TestResponse {
        var request = HTTPClientRequest(url: server.baseURL + path)
        request.method = .POST
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        request.headers.add(name: "Content-Type", value: contentType)
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await server.client.execute(request, timeout: .seconds(60))
        let collected = try await response.body.collect(upTo: 32 << 20)
        return TestResponse(
            status: Int(response.status.code), headers: response.headers, body: String(buffer: collected))
    }
}

/// A path with its query text percent-encoded.
func searchPath(_ query: String) -> String {
    "/search?q=" + query.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
}

/// The ids in `[[String: Any]]` JSON objects, in order.
func ids(_ objects: [[String: Any]]) -> [Int64] {
    objects.compactMap { ($0["id"] as? Int).map(Int64.init) }
}
