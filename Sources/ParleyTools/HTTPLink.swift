import AsyncHTTPClient
import Foundation
import Logging
import MCP
import NIOCore
import NIOHTTP1
import ParleyProviders

/// A streamable HTTP MCP server: each message Parley sends is a POST to its address with the configured headers,
/// answered with JSON or with a stream of Server-Sent Events; a GET stream, when the server offers one, carries the
/// messages it sends on its own (a changed tool list). The MCP SDK's own HTTP transport reads neither event streams
/// nor the GET stream on Linux, hence this one, on AsyncHTTPClient.
actor HTTPLink: MCPLink, Transport {
    /// The most a JSON answer may hold.
    static let maxBody = 64 * 1_048_576
    /// How long to wait before opening a GET stream again after the server ended one.
    static let reopenDelay = Duration.seconds(1)

    nonisolated let logger: Logger
    private let url: String
    private let headers: [String: String]
    private let client: HTTPClient
    private let headTimeout: TimeAmount
    private var sessionID: String?
    private var protocolVersion: String?
    private let messages: AsyncThrowingStream<Data, Error>
    private let delivery: AsyncThrowingStream<Data, Error>.Continuation
    nonisolated let ended = Latch()
    private var goneReason = "the server went away"

    /// A link to `url` whose requests carry `headers`; an answer's head may take `headTimeout` (longer than a tool call
    /// may last, for servers that answer a call with JSON once it is done).
    init(url: String, headers: [String: String], client: HTTPClient, headTimeout: Duration, logger: Logger) {
        self.url = url
        self.headers = headers
        self.client = client
        self.headTimeout = .nanoseconds(Int64(headTimeout.components.seconds) * 1_000_000_000)
        self.logger = logger
        (messages, delivery) = AsyncThrowingStream.makeStream()
    }

    nonisolated var transport: any Transport { self }

    func initialized(protocolVersion: String) {
        self.protocolVersion = protocolVersion
    }

    func connect() async throws {}

    /// Ends the session: the server is told (a DELETE, as MCP asks) and the message stream finishes.
    func disconnect() async {
        if sessionID != nil, !ended.isOpen {
            _ = try? await client.execute(request(method: .DELETE), timeout: .seconds(2))
        }
        delivery.finish()
    }

    func close() async {
        await disconnect()
    }

    func receive() -> AsyncThrowingStream<Data, Error> {
        messages
    }

    func send(_ data: Data) async throws {
        var post = request(method: .POST)
        post.headers.add(name: "Content-Type", value: "application/json")
        post.headers.add(name: "Accept", value: "application/json, text/event-stream")
        post.body = .bytes(ByteBuffer(bytes: data))
        let response = try await execute(post)
        switch response.status.code {
        case 202:
            return
        case 200..<300 where isEventStream(response):
            try await relayEvents(of: response)
        case 200..<300:
            delivery.yield(Data((try await response.body.collect(upTo: Self.maxBody)).readableBytesView))
        default:
            throw MCPError.internalError("the server answered HTTP \(response.status.code)")
        }
    }

    /// Listens on the GET stream, opened again whenever the server ends it, until the server is gone or the task is
    /// cancelled; a server without one (405) is then only watched for failed requests.
    func waitUntilClosed() async -> String {
        // Bounded: each pass waits for a stream to end, then `reopenDelay`; it ends when the server is gone.
        while !Task.isCancelled, !ended.isOpen {
            var get = request(method: .GET)
            get.headers.add(name: "Accept", value: "text/event-stream")
            guard let response = try? await execute(get) else { break }
            if response.status.code == 405 {
                await ended.wait()
                break
            }
            guard response.status.code == 200, isEventStream(response) else {
                return "the server answered its event stream with HTTP \(response.status.code)"
            }
            try? await relayEvents(of: response)
            try? await Task.sleep(for: Self.reopenDelay)
        }
        return Task.isCancelled ? "stopped" : goneReason
    }

    /// A request to the server with the configured headers and the session's.
    private func request(method: HTTPMethod) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let sessionID { request.headers.add(name: "Mcp-Session-Id", value: sessionID) }
        if let protocolVersion { request.headers.add(name: "MCP-Protocol-Version", value: protocolVersion) }
        return request
    }

    /// Executes `request`, keeping the session id the server gives; an address that does not answer, or a session
    /// the server no longer knows (404), means the server is gone.
    private func execute(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: headTimeout)
        } catch {
            if !Task.isCancelled { markGone("the address does not answer (\(error))") }
            throw MCPError.transportError(error)
        }
        if response.status.code == 404, sessionID != nil {
            markGone("the server no longer knows the session")
            throw MCPError.internalError("the session expired")
        }
        if let id = response.headers.first(name: "Mcp-Session-Id") { sessionID = id }
        return response
    }

    private func markGone(_ reason: String) {
        guard !ended.isOpen else { return }
        goneReason = reason
        ended.open()
    }

    private func isEventStream(_ response: HTTPClientResponse) -> Bool {
        response.headers.first(name: "Content-Type")?.lowercased().hasPrefix("text/event-stream") ?? false
    }

    /// Hands on the data of each `message` event of a stream, as it comes.
    private func relayEvents(of response: HTTPClientResponse) async throws {
        var parser = SSEParser()
        for try await buffer in response.body {
            for event in parser.feed(buffer.readableBytesView)
            where (event.event.isEmpty || event.event == "message") && !event.data.isEmpty {
                delivery.yield(Data(event.data.utf8))
            }
        }
    }
}
