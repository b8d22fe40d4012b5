import AsyncHTTPClient
import Hummingbird
import Logging
import MockUpstream
import ParleyCore
import Synchronization
import Testing

@testable import ParleyProviders

/// A provider that answers with a redirect is an error naming where it points, and nothing goes there: the vendors'
/// key headers (`x-api-key`, `x-goog-api-key`) and the conversation would otherwise reach another origin.
@Suite struct UpstreamRedirectTests {
    @Test(
        "a 307 from any vendor's stream, the model list or the image endpoint is `redirected`; the other origin gets nothing",
        arguments: [ProviderKind.openai, .anthropic, .gemini])
    func redirectIsNotFollowed(kind: ProviderKind) async throws {
        let landed = Mutex(0)
        let landing = Router()
        landing.on("**", method: .post) { _, _ in
            landed.withLock { $0 += 1 }; return Response(status: .ok)
        }
        landing.on("**", method: .get) { _, _ in
            landed.withLock { $0 += 1 }; return Response(status: .ok)
        }
        try await Self.serving(landing) { landingPort in
            let target = "http://127.0.0.1:\(landingPort)/elsewhere"
            let redirecting = Router()
            for method in [HTTPRequest.Method.get, .post] {
                redirecting.on("**", method: method) { _, _ in
                    Response(status: .temporaryRedirect, headers: [.location: target])
                }
            }
            try await Self.serving(redirecting) { port in
                let client = HTTPClient(
                    eventLoopGroupProvider: .singleton,
                    configuration: .upstream(timeouts: UpstreamTimeouts(), connections: 4))
                let base = kind == .openai ? "http://127.0.0.1:\(port)/v1" : "http://127.0.0.1:\(port)"
                let connection = ProviderConnection(
                    name: kind.displayName, baseURL: base, apiKey: "secret-key", client: client)
                let expected = ProviderError.redirected(status: 307, location: target)

                let (chunks, error) = await ProviderHarness.collect(
                    kind.makeProvider(connection), ProviderHarness.request(model: "m"))
                #expect(chunks.isEmpty)
                #expect(error == expected)
                if kind == .openai {
                    let provider = OpenAICompatibleProvider(connection: connection)
                    await #expect(throws: expected) { try await provider.listModels() }
                    await #expect(throws: expected) {
                        try await provider.generateImage(prompt: "a cat", model: "dall-e-3")
                    }
                }
                #expect(expected.reason.message.contains(target))
                try await client.shutdown()
            }
        }
        #expect(landed.withLock { $0 } == 0)
    }

    /// Runs `body` with `router` served on a loopback port.
    private static func serving(_ router: Router<BasicRequestContext>, _ body: (Int) async throws -> Void) async throws
    {
        let (ports, ready) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { ready.yield($0.localAddress?.port ?? 0) }, logger: Logger(label: "redirect"))
        try await withRunningService(app, logger: app.logger) {
            var iterator = ports.makeAsyncIterator()
            try await body(try #require(await iterator.next()))
        }
    }
}
