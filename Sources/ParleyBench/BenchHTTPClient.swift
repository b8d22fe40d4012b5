import AsyncHTTPClient
import ParleyProviders

/// The HTTP clients every bench uses, and their orderly shutdown.
enum BenchHTTPClient {
    /// Event streams one client carries to an HTTPS server: AsyncHTTPClient opens one HTTP/2 connection per host and
    /// queues requests past the server's 100 concurrent streams rather than opening another (async-http-client#567).
    static let streamsPerHTTP2Client = 90

    /// Runs `work` with a client sized for `connections` concurrent connections, trusting the certificate authorities
    /// in the PEM files `authorities` (an HTTPS mock's or Parley's) besides the system's, shutting it down afterwards.
    static func with<T>(
        connections: Int = 20_000, trusting authorities: [String] = [],
        _ work: (HTTPClient) async throws -> T
    ) async throws -> T {
        try await with(count: 1, connections: connections, trusting: authorities) { try await work($0[0]) }
    }

    /// Runs `work` with `count` such clients, shutting them all down afterwards.
    static func with<T>(
        count: Int, connections: Int = 20_000, trusting authorities: [String] = [],
        _ work: ([HTTPClient]) async throws -> T
    ) async throws -> T {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.connectionPool = .init(
            idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        configuration.timeout = .init(connect: .seconds(30), read: .seconds(60))
        if !authorities.isEmpty { configuration.trust(authorities.map { .file($0) }) }
        let clients = (0..<count).map { _ in
            HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        }
        do {
            let result = try await work(clients)
            for client in clients { try await client.shutdown() }
            return result
        } catch {
            for client in clients { try? await client.shutdown() }
            throw error
        }
    }
}
