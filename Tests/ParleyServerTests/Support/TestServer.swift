import AsyncHTTPClient
import Foundation
import Logging
import MockUpstream
import ParleyCore
import ParleyServer
import ServiceLifecycle
import TestDatabases

/// A live Parley server on a loopback port, with a real SQLite file in a temp folder (or a new database of the test
/// PostgreSQL) and a real `mock-upstream` as its OpenAI-compatible provider.
struct TestServer: Sendable {
    let port: Int
    let mockPort: Int
    let dataDirectory: String
    let client: HTTPClient
    /// The server's routes as "METHOD /path", when it runs in this process.
    var routes: [String] = []
    /// Whether the mock serves HTTPS (`client` then trusts its certificate).
    var mockUsesTLS = false

    /// Whether Parley itself serves HTTPS (`client` then trusts its certificate).
    var usesTLS = false

    var baseURL: String { "\(usesTLS ? "https" : "http")://127.0.0.1:\(port)" }
    var mockURL: String { "\(mockUsesTLS ? "https" : "http")://127.0.0.1:\(mockPort)" }

    /// The repository's root, where `Templates/` and `Public/` live.
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// A new browser with an empty cookie jar.
    func browser() -> Browser { Browser(server: self) }

    /// The mock's request counters.
    func mockStats() async throws -> MockCounters {
        let response = try await client.execute(HTTPClientRequest(url: mockURL + "/stats"), timeout: .seconds(5))
        let body = try await response.body.collect(upTo: 1 << 20)
        return try JSONDecoder().decode(MockCounters.self, from: Data(body.readableBytesView))
    }

    /// The body of the last request the mock received, as JSON text.
    func mockLastRequest() async throws -> String? {
        let response = try await client.execute(HTTPClientRequest(url: mockURL + "/stats"), timeout: .seconds(5))
        let body = try await response.body.collect(upTo: 1 << 20)
        let stats = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
        switch stats?["last_request"] {
        case let text as String: return text
        case let object?: return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        case nil: return nil
        }
    }

    /// A gauge from Parley's `/metrics`. Every server of the test process shares one metrics registry, so late in the
    /// suite the page holds the request series of every route every earlier test called: it may pass a megabyte.
    func gauge(_ name: String) async throws -> Int? {
        let response = try await client.execute(HTTPClientRequest(url: baseURL + "/metrics"), timeout: .seconds(5))
        let text = String(buffer: try await response.body.collect(upTo: 32 << 20))
        return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap {
            Int($0.split(separator: " ")[1])
        }
    }

    /// Waits until `condition` holds for the mock's counters, up to `timeout`; returns the last counters.
    @discardableResult
    func waitForMock(timeout: Duration = .seconds(5), _ condition: (MockCounters) -> Bool) async throws -> MockCounters
    {
        let deadline = ContinuousClock.now + timeout
        var stats = try await mockStats()
        while !condition(stats), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
            stats = try await mockStats()
        }
        return stats
    }
}

/// The counters of `GET /stats` on the mock upstream.
struct MockCounters: Decodable, Sendable {
    var requests: Int
    var open: Int
    var completed: Int
    var aborted: Int
    var modelListRequests: Int

    enum CodingKeys: String, CodingKey {
        case requests, open, completed, aborted, modelListRequests = "model_list_requests"
    }
}

/// The between-token timeout for tests whose upstream stalls on purpose.
let stallTimeout = Duration.seconds(2)

/// Settings for tests: fast hashing and timers, the repository's templates, a temp data folder.
func testSettings(dataDirectory: String, mockPort: Int) -> ServerSettings {
    var settings = ServerSettings()
    settings.port = 0
    settings.dataDirectory = dataDirectory
    settings.templatesDirectory = TestServer.repositoryRoot + "/Templates"
    settings.publicDirectory = TestServer.repositoryRoot + "/Public"
    settings.bcryptCost = 4
    settings.logLevel = .warning
    // Long enough that a loaded CI machine never trips it; tests of a stalling upstream set `stallTimeout`.
    settings.upstreamIdleTimeout = .seconds(15)
    settings.demoTokenDelay = .milliseconds(1)
    // Tests sign many people up from one address.
    settings.signupRateLimit = nil
    // The mock's models must be known when a test starts, however loaded the machine.
    settings.modelDiscoveryWait = .seconds(30)
    settings.generation = GenerationSettings(
        flushInterval: .milliseconds(200), heartbeatInterval: .milliseconds(500),
        retry: RetryPolicy(maxRetries: 2, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50)),
        shutdownGrace: .milliseconds(200), modelTitles: false)
    settings.environment = ["OPENAI_BASE_URL": "http://127.0.0.1:\(mockPort)/v1", "OPENAI_API_KEY": "test-key"]
    return settings
}

/// A self-signed certificate for 127.0.0.1 and localhost, in a new temp folder (for the mock or Parley to serve HTTPS).
func selfSignedCertificate() throws -> MockTLSFiles {
    try MockTLSFiles.selfSigned(in: try makeTempDirectory())
}

/// A fresh temp folder.
func makeTempDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-test-" + UUID().uuidString).path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Runs `body` against a live server (and mock upstream), shutting both down afterwards. With `mockTLS`, the mock
/// serves HTTPS with those files, and the server is pointed at it through `PARLEY_UPSTREAM_CA_FILE` (before
/// `configure` runs). With `serverTLS`, Parley serves HTTPS with those files (`PARLEY_TLS_CERTIFICATE` and
/// `PARLEY_TLS_KEY`), and the test's client trusts them. `database` is where the server keeps its data: the data
/// folder's SQLite file, or a new database of the test PostgreSQL.
func withTestServer(
    mockTokens: Int = 30, mockDelayMilliseconds: Int = 0, mockFirstTokenMilliseconds: Int = 0,
    dataDirectory: String? = nil, database: TestDatabase = .sqlite,
    mockTLS: MockTLSFiles? = nil, serverTLS: MockTLSFiles? = nil,
    configure: (inout ServerSettings) throws -> Void = { _ in },
    _ body: (TestServer) async throws -> Void
) async throws {
    let directory = try dataDirectory ?? makeTempDirectory()
    let client = makeTestClient(trusting: [mockTLS, serverTLS].compactMap { $0?.certificateChain })
    do {
        let mock = MockUpstream(
            configuration: .init(
                port: 0, tokens: mockTokens, delayMilliseconds: mockDelayMilliseconds,
                firstTokenMilliseconds: mockFirstTokenMilliseconds, tls: mockTLS))
        try await mock.serving { mockPort in
            var settings = testSettings(dataDirectory: directory, mockPort: mockPort)
            if let mockTLS {
                settings.environment["OPENAI_BASE_URL"] = "https://127.0.0.1:\(mockPort)/v1"
                settings.upstreamCertificateAuthorities = mockTLS.certificateChain
            }
            settings.tlsCertificate = serverTLS?.certificateChain
            settings.tlsKey = serverTLS?.privateKey
            try configure(&settings)
            /// Serves over `stores` (the data folder's SQLite file when nil) while `body` runs.
            func serve(_ stores: StoreSet?) async throws {
                let (ports, ready) = AsyncStream.makeStream(of: Int.self)
                let app = try await buildApplication(settings: settings, stores: stores) { ready.yield($0) }
                try await withRunningService(app, logger: Logger(label: "test")) {
                    var iterator = ports.makeAsyncIterator()
                    guard let port = await iterator.next() else { return }
                    try await body(
                        TestServer(
                            port: port, mockPort: mockPort, dataDirectory: directory, client: client,
                            routes: app.routes, mockUsesTLS: mockTLS != nil, usesTLS: serverTLS != nil))
                }
            }
            switch database {
            case .sqlite: try await serve(nil)
            case .postgres: try await database.withStores { try await serve($0) }
            }
        }
    } catch {
        try? await client.shutdown()
        throw error
    }
    try await client.shutdown()
    if dataDirectory == nil { try? FileManager.default.removeItem(atPath: directory) }
}
