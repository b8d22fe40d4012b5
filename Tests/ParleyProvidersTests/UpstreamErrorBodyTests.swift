import Hummingbird
import Logging
import MockUpstream
import ParleyCore
import Testing

@testable import ParleyProviders

/// An upstream's error answer is read only up to `UpstreamRequest.maxErrorBody`, however long it is.
@Suite struct UpstreamErrorBodyTests {
    @Test(
        "a 400 with a 2 MB body is read to 64 KB only: its JSON is cut, so the reason is the body's first 200 characters"
    )
    func oversizedErrorBodyIsCut() async throws {
        let body =
            #"{"error":{"message":""# + String(repeating: "x", count: 2_000_000)
            + #"","type":"invalid_request_error"}}"#
        let router = Router()
        router.post("/v1/chat/completions") { _, _ in
            Response(status: .badRequest, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
        }
        let (ports, ready) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { ready.yield($0.localAddress?.port ?? 0) }, logger: Logger(label: "huge-error"))
        try await withRunningService(app, logger: app.logger) {
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            try await ProviderHarness.withClient(UpstreamTimeouts()) { client in
                let provider = OpenAICompatibleProvider(
                    connection: ProviderConnection(
                        name: "OpenAI", baseURL: "http://127.0.0.1:\(port)/v1", apiKey: "test-key", client: client))
                let (chunks, error) = await ProviderHarness.collect(provider, ProviderHarness.request(model: "gpt-4o"))
                #expect(chunks.isEmpty)
                // Read whole, the JSON would parse and the reason would be the two million x's.
                #expect(error == .rejected(status: 400, detail: String(body.prefix(200))))
            }
        }
    }
}
