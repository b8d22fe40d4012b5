import AsyncHTTPClient
import Foundation
import NIOPosix
import ParleyCore
@testable import ParleyProviders
import Testing

/// A provider whose port refuses connections is known to be down at once, not after the connect timeout.
@Suite struct UpstreamConnectTests {
    @Test("a refused connection is connectFailed, not retried by the reply, within the connect timeout (the client retried it until then)")
    func refusedConnectionFailsFast() async throws {
        let port = try Self.closedPort()
        let timeouts = UpstreamTimeouts(connect: .seconds(1))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .upstream(timeouts: timeouts, connections: 4))
        let provider = OpenAICompatibleProvider(connection: ProviderConnection(name: "Local", baseURL: "http://127.0.0.1:\(port)/v1",
                                                                              apiKey: nil, client: client, timeouts: timeouts))
        let started = ContinuousClock.now
        let (chunks, error) = await ProviderHarness.collect(provider, ProviderHarness.request(model: "m"))
        let elapsed = started.duration(to: .now)
        try await client.shutdown()
        #expect(chunks.isEmpty)
        #expect(error.map { if case .connectFailed = $0 { true } else { false } } == true, "\(String(describing: error))")
        #expect(error?.isRetryable == false)
        #expect(elapsed < .seconds(2))
    }

    /// A loopback port nothing listens on (bound, then closed).
    static func closedPort() throws -> Int {
        let channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).wait()
        let port = channel.localAddress?.port ?? 0
        try channel.close().wait()
        return port
    }
}
