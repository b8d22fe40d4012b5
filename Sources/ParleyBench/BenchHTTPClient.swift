import AsyncHTTPClient
import ParleyProviders

/// The HTTP client every bench uses, and its orderly shutdown.
enum BenchHTTPClient {
    /// Runs `work` with a client sized for `connections` concurrent connections, trusting the certificate authorities
    /// in the PEM file `authorities` (an HTTPS mock's) besides the system's, shutting it down afterwards.
    static func with<T>(connections: Int = 20_000, trusting authorities: String? = nil,
                        _ work: (HTTPClient) async throws -> T) async throws -> T {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        configuration.timeout = .init(connect: .seconds(30), read: .seconds(60))
        if let authorities { configuration.trust(.file(authorities)) }
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
