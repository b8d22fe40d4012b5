import Foundation
import Hummingbird
import Logging
import MockUpstream
import ParleyCore
@testable import ParleyProviders
import Testing

/// The OpenAI-compatible wire format: the request Parley sends, model discovery, and OpenAI's errors.
@Suite struct OpenAICompatibleProviderTests {
    typealias Harness = ProviderHarness

    @Test func requestCarriesABearerKey() {
        let connection = ProviderConnection(name: "OpenAI", baseURL: "https://api.openai.com/v1", apiKey: "sk-1", client: .shared)
        let request = OpenAICompatibleProvider(connection: connection).upstreamRequest(for: Harness.request(model: "gpt-4o"))
        #expect(request.url == "https://api.openai.com/v1/chat/completions")
        #expect(request.headers.map { "\($0.0): \($0.1)" } == ["Authorization: Bearer sk-1"])
    }

    @Test func bodyKeepsTheSystemTurnAndAsksForUsage() async throws {
        try await withMock { mock in
            _ = await Harness.collect(Harness.provider(.openai, mock: mock), Harness.request(model: "mock-fast"))
            let expected: NSDictionary = [
                "model": "mock-fast", "stream": true, "stream_options": ["include_usage": true],
                "messages": [["role": "system", "content": "Be brief."], ["role": "user", "content": "earlier question"],
                             ["role": "assistant", "content": "earlier answer"], ["role": "user", "content": Harness.question]],
            ]
            let body = try await Harness.lastRequest(mock)
            #expect(body == expected)
        }
    }

    @Test("a listed model's context window is read from vLLM's max_model_len or OpenRouter's context_length; none or a silly one is nil")
    func listedContextWindows() async throws {
        let router = Router()
        router.get("/v1/models") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: """
                {"object": "list", "data": [
                  {"id": "vllm-model", "object": "model", "max_model_len": 32768},
                  {"id": "routed", "context_length": 200000},
                  {"id": "plain"}, {"id": "tiny", "max_model_len": 12}]}
                """)))
        }
        let (ports, ready) = AsyncStream.makeStream(of: Int.self)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { ready.yield($0.localAddress?.port ?? 0) }, logger: Logger(label: "models"))
        try await withRunningService(app, logger: app.logger) {
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            try await Harness.withClient(UpstreamTimeouts()) { client in
                let provider = OpenAICompatibleProvider(connection: ProviderConnection(
                    name: "local", baseURL: "http://127.0.0.1:\(port)/v1", apiKey: nil, client: client))
                let listed = try await provider.listModels()
                #expect(listed == [ListedModel(id: "vllm-model", contextWindow: 32_768), ListedModel(id: "routed", contextWindow: 200_000),
                                   ListedModel(id: "plain", contextWindow: nil), ListedModel(id: "tiny", contextWindow: nil)])
            }
        }
    }

    @Test func listModelsReadsTheServersList() async throws {
        try await withMock { mock in
            let provider = OpenAICompatibleProvider(connection: ProviderConnection(
                name: "local", baseURL: Harness.baseURL(.openai, port: mock.port), apiKey: nil, client: mock.client))
            let ids = try await provider.listModels().map(\.id)
            #expect(ids == ["mock-fast", "mock-slow", "mock-429", "mock-500", "mock-reset", "mock-stall", "mock-garbage", "mock-long",
                            "mock-empty", "mock-nousage", "mock-window", "mock-length"])
        }
    }

    @Test("OpenAI's error answers map to clear reasons", arguments: [
        (400, #"{"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#,
         ProviderError.contextTooLong),
        (400, #"{"error":{"message":"Your request was rejected by the safety system.","type":"invalid_request_error","code":"content_policy_violation"}}"#,
         .refused(detail: "Your request was rejected by the safety system.")),
        (429, #"{"error":{"message":"You exceeded your current quota.","type":"insufficient_quota","code":"insufficient_quota"}}"#,
         .rejected(status: 429, detail: "You exceeded your current quota.")),
        (404, "<html>Not Found</html>", .rejected(status: 404, detail: "<html>Not Found</html>")),
        (502, "Bad Gateway", .overloaded(status: 502)),
    ])
    func errorAnswersMapToReasons(status: Int, body: String, expected: ProviderError) {
        #expect(UpstreamFailure(status: status, body: body).providerError(provider: "OpenAI", hasKey: true, model: "gpt-4o") == expected)
    }

    @Test func errorChunkInsideTheStreamIsAFailure() {
        var decoder = OpenAIStreamDecoder()
        var chunks: [CompletionChunk] = []
        #expect(throws: UpstreamFailure(status: 502, code: "server_error", message: "The server had an error")) {
            try decoder.decode(SSEMessage(data: #"{"error":{"message":"The server had an error","type":"server_error"}}"#), into: &chunks)
        }
    }
}
