import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import MockUpstream
import NIOCore
import ParleyCore
import Testing

@testable import ParleyProviders

/// The OpenAI-compatible wire format: the request Parley sends, model discovery, and OpenAI's errors.
@Suite struct OpenAICompatibleProviderTests {
    typealias Harness = ProviderHarness

    @Test func requestCarriesABearerKey() {
        let connection = ProviderConnection(
            name: "OpenAI", baseURL: "https://api.openai.com/v1", apiKey: "sk-1", client: .shared)
        let request = OpenAICompatibleProvider(connection: connection).upstreamRequest(
            for: Harness.request(model: "gpt-4o"))
        #expect(request.url == "https://api.openai.com/v1/chat/completions")
        #expect(request.headers.map { "\($0.0): \($0.1)" } == ["Authorization: Bearer sk-1"])
    }

    @Test("a connection that could not be opened is connectFailed, however the client's last attempt ended")
    func connectFailuresAreNotRetryable() {
        let connection = ProviderConnection(
            name: "local", baseURL: "http://127.0.0.1:9/v1", apiKey: nil,
            client: .shared)
        let failures: [any Error] = [
            ChannelError.connectTimeout(.seconds(3)), HTTPClientError.connectTimeout,
            IOError(errnoCode: ECONNREFUSED, reason: "connect"),
        ]
        for failure in failures {
            let error = connection.providerError(from: failure, model: "m")
            guard case .connectFailed = error else {
                Issue.record("\(failure) became \(error)")
                continue
            }
            #expect(!error.isRetryable && error.allowsFallback)
        }
    }

    @Test func bodyKeepsTheSystemTurnAndAsksForUsage() async throws {
        try await withMock { mock in
            _ = await Harness.collect(Harness.provider(.openai, mock: mock), Harness.request(model: "mock-fast"))
            let expected: NSDictionary = [
                "model": "mock-fast", "stream": true, "stream_options": ["include_usage": true],
                "messages": [
                    ["role": "system", "content": "Be brief."], ["role": "user", "content": "earlier question"],
                    ["role": "assistant", "content": "earlier answer"], ["role": "user", "content": Harness.question],
                ],
            ]
            let body = try await Harness.lastRequest(mock)
            #expect(body == expected)
        }
    }

    /// A JSON answer.
    static func json(_ text: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// The models a provider lists from a server made of `router`'s routes, on loopback, with the windows it gives.
    static func listed(from router: Router<BasicRequestContext>) async throws -> [ListedModel] {
        let (ports, ready) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { ready.yield($0.localAddress?.port ?? 0) }, logger: Logger(label: "models"))
        var listed: [ListedModel] = []
        try await withRunningService(app, logger: app.logger) {
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            try await Harness.withClient(UpstreamTimeouts()) { client in
                let provider = OpenAICompatibleProvider(
                    connection: ProviderConnection(
                        name: "local", baseURL: "http://127.0.0.1:\(port)/v1", apiKey: nil, client: client))
                listed = await provider.withServerWindows(try await provider.listModels()).map { model in
                    ListedModel(id: model.id, contextWindow: model.contextWindow)
                }
            }
        }
        return listed
    }

    @Test("a listed model's window is vLLM's max_model_len or OpenRouter's context_length; none or a silly one is nil")
    func listedContextWindows() async throws {
        let router = Router()
        router.get("/v1/models") { _, _ in
            Self.json(
                """
                {"object": "list", "data": [
                  {"id": "vllm-model", "object": "model", "max_model_len": 32768},
                  {"id": "routed", "context_length": 200000},
                  {"id": "plain"}, {"id": "tiny", "max_model_len": 12}]}
                """)
        }
        #expect(
            try await Self.listed(from: router) == [
                ListedModel(id: "vllm-model", contextWindow: 32_768), ListedModel(id: "routed", contextWindow: 200_000),
                ListedModel(id: "plain", contextWindow: nil), ListedModel(id: "tiny", contextWindow: nil),
            ])
    }

    /// llama.cpp's server as it answers: its one model with `meta`, and `/props` when `slotWindow` is given.
    static func llamaServer(slotWindow: Int?) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/v1/models") { _, _ in
            Self.json(
                """
                {"object": "list", "data": [{"id": "/models/SmolLM2-135M-Instruct.gguf", "object": "model",
                  "created": 1764150000, "owned_by": "llamacpp", "meta": {"vocab_type": 2, "n_vocab": 49152,
                  "n_ctx_train": 8192, "n_embd": 576, "n_params": 134515008, "size": 138113664}}]}
                """)
        }
        if let slotWindow {
            router.get("/props") { _, _ in
                Self.json(
                    """
                    {"default_generation_settings": {"id": 0, "id_task": -1, "n_ctx": \(slotWindow),
                      "speculative": false, "is_processing": false, "params": {"n_predict": -1, "temperature": 0.8}},
                     "total_slots": 4, "model_path": "/models/SmolLM2-135M-Instruct.gguf", "chat_template": "{{ x }}",
                     "build_info": "b5000-abcdef0"}
                    """)
            }
        }
        return router
    }

    @Test("a llama.cpp server's window is its slot's n_ctx from /props, else the n_ctx_train its list gives")
    func llamaServerWindows() async throws {
        let id = "/models/SmolLM2-135M-Instruct.gguf"
        let withProps = try await Self.listed(from: Self.llamaServer(slotWindow: 2048))
        #expect(withProps == [ListedModel(id: id, contextWindow: 2048)])
        let withoutProps = try await Self.listed(from: Self.llamaServer(slotWindow: nil))
        #expect(withoutProps == [ListedModel(id: id, contextWindow: 8192)])
    }

    @Test("an Ollama model's window is its num_ctx (/api/show), else 4,096 within its trained length; unknown is nil")
    func ollamaWindows() async throws {
        let router = Router()
        router.get("/v1/models") { _, _ in
            Self.json(
                """
                {"object": "list", "data": [
                  {"id": "llama3.1:8b", "object": "model", "created": 1764150000, "owned_by": "library"},
                  {"id": "big-context:latest", "object": "model", "owned_by": "library"},
                  {"id": "tinyllama:latest", "object": "model", "owned_by": "library"},
                  {"id": "gone:latest", "object": "model", "owned_by": "library"}]}
                """)
        }
        router.post("/api/show") { request, context in
            let asked = try await request.decode(as: [String: String].self, context: context)["model"] ?? ""
            let shows = [
                "llama3.1:8b": #"""
                {"parameters": "stop                           \"<|eot_id|>\"",
                 "model_info": {"general.architecture": "llama", "llama.context_length": 131072}}
                """#,
                "big-context:latest": #"""
                {"parameters": "num_ctx                        32768\ntemperature                    0.7",
                 "model_info": {"qwen2.context_length": 32768}}
                """#,
                "tinyllama:latest": #"{"model_info": {"llama.context_length": 2048}, "capabilities": ["completion"]}"#,
            ]
            guard let show = shows[asked] else { throw HTTPError(.notFound, message: "model '\(asked)' not found") }
            return Self.json(show)
        }
        #expect(
            try await Self.listed(from: router) == [
                ListedModel(id: "llama3.1:8b", contextWindow: 4096),
                ListedModel(id: "big-context:latest", contextWindow: 32_768),
                ListedModel(id: "tinyllama:latest", contextWindow: 2048),
                ListedModel(id: "gone:latest", contextWindow: nil),
            ])
    }

    @Test func listModelsReadsTheServersList() async throws {
        try await withMock { mock in
            let provider = OpenAICompatibleProvider(
                connection: ProviderConnection(
                    name: "local", baseURL: Harness.baseURL(.openai, port: mock.port), apiKey: nil, client: mock.client)
            )
            let ids = try await provider.listModels().map(\.id)
            #expect(
                ids == [
                    "mock-fast", "mock-slow", "mock-429", "mock-500", "mock-reset", "mock-stall", "mock-garbage",
                    "mock-long",
                    "mock-empty", "mock-nousage", "mock-window", "mock-length", "mock-think", "mock-think-tag",
                    "mock-deaf", "mock-cite", "mock-tools",
                ])
        }
    }

    @Test(
        "OpenAI's error answers map to clear reasons",
        arguments: [
            (
                400,
                #"{"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#,
                ProviderError.contextTooLong
            ),
            (
                400,
                #"{"error":{"message":"Your request was rejected by the safety system.","type":"invalid_request_error","code":"content_policy_violation"}}"#,
                .refused(detail: "Your request was rejected by the safety system.")
            ),
            (
                429,
                #"{"error":{"message":"You exceeded your current quota.","type":"insufficient_quota","code":"insufficient_quota"}}"#,
                .rejected(status: 429, detail: "You exceeded your current quota.")
            ),
            (404, "<html>Not Found</html>", .rejected(status: 404, detail: "<html>Not Found</html>")),
            (502, "Bad Gateway", .overloaded(status: 502)),
        ])
    func errorAnswersMapToReasons(status: Int, body: String, expected: ProviderError) {
        #expect(
            UpstreamFailure(status: status, body: body).providerError(provider: "OpenAI", hasKey: true, model: "gpt-4o")
                == expected)
    }

    @Test func errorChunkInsideTheStreamIsAFailure() {
        var decoder = OpenAIStreamDecoder()
        var chunks: [CompletionChunk] = []
        #expect(throws: UpstreamFailure(status: 502, code: "server_error", message: "The server had an error")) {
            try decoder.decode(
                SSEMessage(data: #"{"error":{"message":"The server had an error","type":"server_error"}}"#),
                into: &chunks)
        }
    }
}
