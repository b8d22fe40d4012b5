import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import NIOSSL

/// An LLM upstream simulator speaking the OpenAI, Anthropic and Gemini streaming formats, with fault injection.
public struct MockUpstream: Sendable {
    private let configuration: MockUpstreamConfiguration
    private let stats = MockStats()
    private let pacer = StreamPacer()

    /// Creates a simulator; nothing listens until `run`.
    public init(configuration: MockUpstreamConfiguration) {
        self.configuration = configuration
    }

    /// Serves until SIGTERM or SIGINT. `onReady` gets the bound port (useful with port 0).
    public func run(onReady: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        try await application(onReady: onReady).runService()
    }

    /// Serves while `body` runs with the bound port, then shuts down gracefully (see `withRunningService`).
    public func serving<Result: Sendable>(_ body: (Int) async throws -> Result) async throws -> Result {
        let (ports, ready) = AsyncStream.makeStream(of: Int.self)
        let app = try application { ready.yield($0) }
        return try await withRunningService(app, logger: app.logger) {
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw CancellationError() }
            return try await body(port)
        }
    }

    /// The HTTP application on the configured host and port; throws when the TLS files cannot be read.
    private func application(onReady: @escaping @Sendable (Int) async -> Void) throws -> some ApplicationProtocol {
        let port = configuration.port
        return Application(
            router: router(),
            server: try server(),
            configuration: .init(
                address: .hostname(configuration.host, port: port),
                serverName: "parley-mock-upstream",
                backlog: 4096
            ),
            // Stopped after the server, so the streams it drains keep their pace.
            services: [pacer],
            onServerRunning: { channel in await onReady(channel.localAddress?.port ?? port) }
        )
    }

    /// Plain HTTP/1.1, or HTTPS negotiating HTTP/2 or HTTP/1.1 with the configured certificate.
    private func server() throws -> HTTPServerBuilder {
        guard let tls = configuration.tls else { return .http1() }
        let chain = try NIOSSLCertificate.fromPEMFile(tls.certificateChain).map {
            NIOSSLCertificateSource.certificate($0)
        }
        let key = try NIOSSLPrivateKey(file: tls.privateKey, format: .pem)
        return try .http2Upgrade(
            tlsConfiguration: .makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key)))
    }

    /// The routes: three chat formats, image generation, the model list and the stats.
    private func router() -> Router<BasicRequestContext> {
        let router = Router()
        let openAI = ChatEndpoint(wire: OpenAIWire(), configuration: configuration, stats: stats, pacer: pacer)
        let anthropic = ChatEndpoint(wire: AnthropicWire(), configuration: configuration, stats: stats, pacer: pacer)
        let gemini = ChatEndpoint(wire: GeminiWire(), configuration: configuration, stats: stats, pacer: pacer)
        let images = ImageEndpoint(stats: stats)
        let stats = stats
        router.post("v1/images/generations") { await images.respond(to: $0, context: $1) }
        router.post("v1/chat/completions") { await openAI.respond(to: $0, context: $1) }
        router.post("v1/messages") { await anthropic.respond(to: $0, context: $1) }
        router.post("v1beta/models/{modelAction}") { await gemini.respond(to: $0, context: $1) }
        router.get("v1/models") { _, _ in
            await stats.listedModels()
            return Self.json(OpenAIWire.modelList)
        }
        router.get("stats") { _, _ in Self.json(await stats.json()) }
        router.post("stats/reset") { _, _ in
            await stats.reset()
            return Self.json(await stats.json())
        }
        return router
    }

    /// A JSON response with the given body text.
    static func json(_ body: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
