import AsyncHTTPClient
import Foundation
import MockUpstream
import NIOSSL
import ParleyCore
import Synchronization
import Testing

@testable import ParleyProviders

/// Which replies have had a token, how many have ended, and the first error one ended with.
private final class Progress: Sendable {
    let started = Mutex(Set<Int>())
    let finished = Atomic(0)
    let firstError = Mutex<ProviderError?>(nil)
    var startedCount: Int { started.withLock { $0.count } }
    var finishedCount: Int { finished.load(ordering: .relaxed) }
}

/// The upstream client's configuration (`HTTPClient.Configuration.upstream`) against the mock serving HTTPS, which
/// offers HTTP/2 as hosted providers do (and allows 100 streams on a connection).
@Suite struct UpstreamHTTPSTests {
    /// Runs `body` with the mock serving HTTPS (`tokens` tokens `delay` apart, certificate made for the test) and a
    /// client configured as the server's, trusting it; shuts both down after.
    static func withHTTPSMock(
        tokens: Int, delayMilliseconds: Int,
        _ body: (Int, HTTPClient) async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-tls-" + UUID().uuidString)
            .path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let files = try MockTLSFiles.selfSigned(in: folder)
        // A loaded test machine may take longer than the 10 s default to finish a burst of TLS handshakes.
        let configuration = HTTPClient.Configuration.upstream(
            timeouts: UpstreamTimeouts(connect: .seconds(60)), connections: 1000,
            authorities: try NIOSSLCertificate.fromPEMFile(files.certificateChain))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
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
    static func provider(port: Int, client: HTTPClient) -> OpenAICompatibleProvider {
        OpenAICompatibleProvider(
            connection: ProviderConnection(
                name: "mock", baseURL: "https://127.0.0.1:\(port)/v1",
                apiKey: "k", client: client))
    }

    /// Starts `count` replies of `provider` at once; returns when all have had a token, when one has ended (or failed),
    /// or after 90 s, and cancels them.
    static func startAndCancel(_ count: Int, _ provider: OpenAICompatibleProvider) async
        -> (started: Int, finished: Int, firstError: ProviderError?)
    {
        let progress = Progress()
        return await withTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask {
                    do throws(ProviderError) {
                        try await provider.streamCompletion(ProviderHarness.request(model: "mock-fast")) { chunk in
                            if case .text = chunk { progress.started.withLock { _ = $0.insert(index) } }
                            return .zero
                        }
                    } catch {
                        progress.firstError.withLock { $0 = $0 ?? error }
                    }
                    progress.finished.add(1, ordering: .relaxed)
                }
            }
            let deadline = ContinuousClock.now + .seconds(90)
            while progress.startedCount < count, progress.finishedCount == 0, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(10))
            }
            let result = (progress.startedCount, progress.finishedCount, progress.firstError.withLock { $0 })
            group.cancelAll()
            return result
        }
    }

    @Test func aReplyStreamsOverHTTPS() async throws {
        try await Self.withHTTPSMock(tokens: MockUpstreamTests.tokens, delayMilliseconds: 0) { port, client in
            let (chunks, error) = await ProviderHarness.collect(
                Self.provider(port: port, client: client),
                ProviderHarness.request(model: "mock-fast"))
            #expect(error == nil)
            #expect(Array(chunks.prefix(MockUpstreamTests.tokens)) == ProviderHarness.texts("mock-fast"))
        }
    }

    @Test func theMockDoesNotStartWithoutItsCertificate() async throws {
        let missing = MockTLSFiles(certificateChain: "/nonexistent/cert.pem", privateKey: "/nonexistent/key.pem")
        await #expect(throws: (any Error).self) {
            try await MockUpstream(configuration: MockUpstreamConfiguration(port: 0, tls: missing)).serving { _ in }
        }
        #expect(throws: (any Error).self) { _ = try MockTLSFiles.selfSigned(in: "/nonexistent") }
    }

    @Test func repliesPastOneConnectionsStreamLimitAllStartAtOnce() async throws {
        // Each reply lasts 60 s (60 tokens 1 s apart), time for a loaded machine to open 150 TLS connections (a full
        // suite on two cores took over 20 s). Over HTTP/2 the mock allows 100 streams on a connection, and the client
        // would queue the other 50 replies, without a token, until the first ones ended.
        try await Self.withHTTPSMock(tokens: 60, delayMilliseconds: 1000) { port, client in
            let (started, finished, error) = await Self.startAndCancel(150, Self.provider(port: port, client: client))
            #expect(started == 150)
            #expect(finished == 0, "\(String(describing: error))")
        }
    }

    @Test func aReplyStreamsAfterAHundredWereStoppedAtOnce() async throws {
        // Over HTTP/2, a connection whose 100 streams were all cancelled took no request again (checked: every later
        // request waited until its deadline, while the mock had closed all 100 streams). Replies of 60 s, as above: a
        // full suite on two cores can take longer than 20 s to start 100 of them.
        try await Self.withHTTPSMock(tokens: 60, delayMilliseconds: 1000) { port, client in
            let provider = Self.provider(port: port, client: client)
            let stopped = await Self.startAndCancel(100, provider)
            #expect(stopped.started == 100 && stopped.finished == 0, "\(String(describing: stopped.firstError))")
            let next = await Self.startAndCancel(1, provider)
            #expect(next.started == 1 && next.finished == 0, "\(String(describing: next.firstError))")
        }
    }
}
