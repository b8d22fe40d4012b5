import AsyncHTTPClient
import Foundation
import NIOCore

extension APIClient {
    /// Sends a message with `Accept: text/event-stream`; returns a reader of the reply's event stream.
    func sendStreaming(_ conversation: Int64, _ content: String) async throws -> EventReader {
        var request = HTTPClientRequest(url: server.baseURL + "/api/conversations/\(conversation)/messages")
        request.method = .POST
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        request.headers.add(name: "Accept", value: "text/event-stream")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: ["content": content])))
        let response = try await server.client.execute(request, timeout: .seconds(60))
        return EventReader(status: Int(response.status.code), headers: response.headers, body: response.body)
    }

    /// The same account's client for another server (a restarted process on the same data folder).
    func on(_ server: TestServer) -> APIClient { APIClient(server: server, token: token) }
}
