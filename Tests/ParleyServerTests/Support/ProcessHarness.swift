import AsyncHTTPClient
import Foundation
import MockUpstream
import ParleyProviders
import Synchronization
import Testing

/// A data folder and an in-process mock upstream, on which real `parley serve` processes are started (and restarted);
/// every process it started is killed when the harness ends, whatever happened.
final class ProcessHarness: Sendable {
    let mockPort: Int
    let dataDirectory: String
    let client: HTTPClient
    /// Variables added to every server's environment.
    let environment: [String: String]
    private let started = Mutex<[Process]>([])

    /// A harness over a running mock upstream and a data folder.
    private init(mockPort: Int, dataDirectory: String, client: HTTPClient, environment: [String: String]) {
        self.mockPort = mockPort
        self.dataDirectory = dataDirectory
        self.client = client
        self.environment = environment
    }

    /// Starts `parley serve` on the harness's data folder (with `openFiles` as its open-file limit when given); returns
    /// the process and a `TestServer` for its port.
    func start(log: FileHandle? = nil, openFiles: (soft: Int, hard: Int)? = nil) async throws -> (Process, TestServer) {
        let (process, port) = try await CrashRecoveryTests.startServer(
            dataDirectory: dataDirectory, mockPort: mockPort,
            environment: environment, log: log, openFiles: openFiles)
        started.withLock { $0.append(process) }
        return (
            process,
            TestServer(
                port: port, mockPort: mockPort, dataDirectory: dataDirectory, client: client,
                usesTLS: environment["PARLEY_TLS_CERTIFICATE"] != nil)
        )
    }

    /// Kills (SIGKILL) every started process that still runs.
    fileprivate func killAll() {
        for process in started.withLock({ $0 }) where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Runs `body` with a fresh data folder, a mock upstream of `mock` and a client with a large connection pool (that
    /// trusts the certificate `PARLEY_TLS_CERTIFICATE` names in `environment`, if any); afterwards kills the servers,
    /// stops the mock and removes the folder.
    static func with(
        mock: MockUpstreamConfiguration = .init(port: 0, tokens: 60), environment: [String: String] = [:],
        _ body: (ProcessHarness) async throws -> Void
    ) async throws {
        let directory = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let client = makeTestClient(trusting: environment["PARLEY_TLS_CERTIFICATE"].map { [$0] } ?? [])
        var mock = mock
        mock.port = 0
        do {
            try await MockUpstream(configuration: mock).serving { mockPort in
                let harness = ProcessHarness(
                    mockPort: mockPort, dataDirectory: directory, client: client,
                    environment: environment)
                defer { harness.killAll() }
                try await body(harness)
            }
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }
}

/// An HTTP client for tests: no redirects followed, enough connections per host for hundreds of open streams, and
/// the certificate authorities in the PEM files `authorities` trusted besides the system's; HTTP/1.1 only when
/// `http1Only`, otherwise HTTP/2 where an HTTPS server offers it.
func makeTestClient(trusting authorities: [String] = [], http1Only: Bool = false) -> HTTPClient {
    var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
    if http1Only { configuration.httpVersion = .http1Only }
    configuration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 2000)
    if !authorities.isEmpty { configuration.trust(authorities.map { .file($0) }) }
    return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
}

/// Runs `body` with a client of its own (see `makeTestClient`), shut down afterwards whatever happens.
func withTestClient<T>(
    trusting authorities: [String] = [], http1Only: Bool = false,
    _ body: (HTTPClient) async throws -> T
) async throws -> T {
    let client = makeTestClient(trusting: authorities, http1Only: http1Only)
    do {
        let result = try await body(client)
        try await client.shutdown()
        return result
    } catch {
        try? await client.shutdown()
        throw error
    }
}
