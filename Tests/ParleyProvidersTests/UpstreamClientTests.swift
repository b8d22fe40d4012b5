import AsyncHTTPClient
import Foundation
import MockUpstream
import NIOSSL
import ParleyCore
@testable import ParleyProviders
import Synchronization
import Testing

/// Which replies have had a token, and how many have ended.
private final class Progress: Sendable {
    let started = Mutex(Set<Int>())
    let finished = Atomic(0)
    var startedCount: Int { started.withLock { $0.count } }
    var finishedCount: Int { finished.load(ordering: .relaxed) }
}

/// The upstream client against the mock over HTTPS, where requests share HTTP/2 connections as they do with hosted
/// providers.
@Suite struct UpstreamClientTests {
    /// Runs `body` with the mock serving HTTPS (`tokens` tokens `delay` apart, certificate made for the test) and an
    /// upstream client that trusts it; shuts both down after.
    static func withHTTPSMock(tokens: Int, delayMilliseconds: Int,
                              _ body: (Int, UpstreamClient) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-tls-" + UUID().uuidString).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let files = try MockTLSFiles.selfSigned(in: folder)
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.additionalTrustRoots = [.file(files.certificateChain)]
        var configuration = HTTPClient.Configuration()
        configuration.tlsConfiguration = tls
        let client = UpstreamClient(configuration: configuration)
        let mock = MockUpstreamConfiguration(port: 0, tokens: tokens, delayMilliseconds: delayMilliseconds, tls: files)
        do {
            try await MockUpstream(configuration: mock).serving { port in try await body(port, client) }
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    /// An OpenAI-compatible provider for the mock on `port`.
    static func provider(port: Int, client: UpstreamClient) -> OpenAICompatibleProvider {
        OpenAICompatibleProvider(connection: ProviderConnection(name: "mock", baseURL: "https://127.0.0.1:\(port)/v1",
                                                                apiKey: "k", client: client))
    }

    @Test func aReplyStreamsOverHTTPS() async throws {
        try await Self.withHTTPSMock(tokens: MockUpstreamTests.tokens, delayMilliseconds: 0) { port, client in
            let (chunks, error) = await ProviderHarness.collect(Self.provider(port: port, client: client),
                                                                ProviderHarness.request(model: "mock-fast"))
            #expect(error == nil)
            #expect(Array(chunks.prefix(MockUpstreamTests.tokens)) == ProviderHarness.texts("mock-fast"))
        }
    }

    @Test func repliesPastOneConnectionsStreamLimitAllStartAtOnce() async throws {
        // Each reply lasts 6 s (60 tokens 100 ms apart), time enough for a loaded machine to start all of them. The mock
        // allows 100 streams on an HTTP/2 connection, and one AsyncHTTPClient would queue the other 50 replies, without
        // a token, until the first ones ended.
        let replies = UpstreamClient.requestsPerClient + 50
        try await Self.withHTTPSMock(tokens: 60, delayMilliseconds: 100) { port, client in
            let provider = Self.provider(port: port, client: client)
            let progress = Progress()
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<replies {
                    group.addTask {
                        try? await provider.streamCompletion(ProviderHarness.request(model: "mock-fast")) { chunk in
                            if case .text = chunk { progress.started.withLock { _ = $0.insert(index) } }
                            return .zero
                        }
                        progress.finished.add(1, ordering: .relaxed)
                    }
                }
                let deadline = ContinuousClock.now + .seconds(20)
                while progress.startedCount < replies, progress.finishedCount == 0, ContinuousClock.now < deadline {
                    try? await Task.sleep(for: .milliseconds(10))
                }
                #expect(progress.startedCount == replies)
                #expect(progress.finishedCount == 0)
                group.cancelAll()
            }
            #expect(client.clientCount == 2)
        }
    }

    @Test func aClientIsReusedOnceItsRequestsEnd() async throws {
        try await Self.withHTTPSMock(tokens: 3, delayMilliseconds: 0) { port, client in
            let provider = Self.provider(port: port, client: client)
            for _ in 0..<3 {
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<UpstreamClient.requestsPerClient {
                        group.addTask { _ = await ProviderHarness.collect(provider, ProviderHarness.request(model: "mock-fast")) }
                    }
                }
            }
            #expect(client.clientCount == 1)
        }
    }
}
