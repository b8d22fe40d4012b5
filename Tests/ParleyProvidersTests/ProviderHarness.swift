import AsyncHTTPClient
import Foundation
import MockUpstream
import ParleyCore
import Synchronization
import Testing

@testable import ParleyProviders

/// Helpers to run the providers against the mock upstream.
enum ProviderHarness {
    /// The last user turn of `request(model:)`.
    static let question = "Say hello to the mock upstream"

    /// A conversation with a system prompt and one earlier exchange, asking `question` of `model`.
    static func request(model: String, system: String? = "Be brief.") -> CompletionRequest {
        CompletionRequest(
            model: model,
            turns: (system.map { [ChatTurn(role: .system, content: $0)] } ?? []) + [
                ChatTurn(role: .user, content: "earlier question"),
                ChatTurn(role: .assistant, content: "earlier answer"),
                ChatTurn(role: .user, content: question),
            ])
    }

    /// The prompt size the mock reports for `request(model:)`: (9 + 16 + 14 + 30) characters / 4.
    static let promptTokens = 17

    /// The mock's base URL as each vendor's SDK takes it.
    static func baseURL(_ kind: ProviderKind, port: Int) -> String {
        kind == .openai ? "http://127.0.0.1:\(port)/v1" : "http://127.0.0.1:\(port)"
    }

    /// A provider of `kind` talking to the mock.
    static func provider(
        _ kind: ProviderKind, mock: MockHarness, key: String? = "test-key",
        timeouts: UpstreamTimeouts = UpstreamTimeouts()
    ) -> any ChatProvider {
        kind.makeProvider(
            ProviderConnection(
                name: kind.displayName, baseURL: baseURL(kind, port: mock.port), apiKey: key,
                client: mock.client, timeouts: timeouts))
    }

    /// Runs `body` with a client configured from `timeouts` as the server's is, then shuts it down.
    static func withClient(_ timeouts: UpstreamTimeouts, _ body: (HTTPClient) async throws -> Void) async throws {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = timeouts.clientTimeout
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            try await body(client)
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    /// Streams `request`, returning every chunk received and the error it ended with, if any;
    /// `observe` sees each chunk as it arrives, and every chunk asks the provider to leave bytes unread for `pause`.
    static func collect(
        _ provider: any ChatProvider, _ request: CompletionRequest, pause: Duration = .zero,
        observe: @escaping @Sendable (CompletionChunk) -> Void = { _ in }
    ) async -> (chunks: [CompletionChunk], error: ProviderError?) {
        let chunks = Mutex<[CompletionChunk]>([])
        do throws(ProviderError) {
            try await provider.streamCompletion(request) { chunk in
                chunks.withLock { $0.append(chunk) }
                observe(chunk)
                return pause
            }
            return (chunks.withLock { $0 }, nil)
        } catch {
            return (chunks.withLock { $0 }, error)
        }
    }

    /// The text chunks of the mock's reply for `model`, the first `count` of them when given.
    static func texts(_ model: String, first count: Int? = nil) -> [CompletionChunk] {
        let chunks = MockReply.chunks(model: model, tokens: MockUpstreamTests.tokens)
        return Array(chunks.prefix(count ?? chunks.count)).map(CompletionChunk.text)
    }

    /// The last request body the mock received, as a dictionary to compare.
    static func lastRequest(_ mock: MockHarness) async throws -> NSDictionary {
        try #require(try await mock.stats()["last_request"] as? NSDictionary)
    }

    /// Waits, at most `timeout`, until the mock counts an aborted stream (it sees the client leave at its next write,
    /// with no event the test could await); returns its counters. A bounded wait, not a timing assertion.
    static func waitForAbort(_ mock: MockHarness, within timeout: Duration = .seconds(5)) async throws -> [String: Any]
    {
        let deadline = ContinuousClock.now + timeout
        var stats = try await mock.stats()
        while stats["aborted"] as? Int != 1, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
            stats = try await mock.stats()
        }
        return stats
    }
}
