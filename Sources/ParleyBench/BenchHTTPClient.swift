import AsyncHTTPClient

/// The HTTP client every bench uses, and its orderly shutdown.
enum BenchHTTPClient {
    /// Runs `work` with a client sized for `connections` concurrent connections, shutting it down afterwards.
    static func with<T>(connections: Int = 20_000, _ work: (HTTPClient) async throws -> T) async throws -> T {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        configuration.timeout = .init(connect: .seconds(30), read: .seconds(60))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let result = try await work(client)
            try await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}
