import AsyncHTTPClient
import ServiceLifecycle

/// Owns the upstream HTTP client's lifetime: it lives until the application shuts down, then closes its connections.
struct HTTPClientService: Service {
    let client: HTTPClient

    func run() async throws {
        try? await gracefulShutdown()
        try await client.shutdown()
    }
}
