import ParleyProviders
import ServiceLifecycle

/// Owns the upstream HTTP client's lifetime: it lives until the application shuts down, then closes its connections.
struct HTTPClientService: Service {
    let client: UpstreamClient

    func run() async throws {
        try? await gracefulShutdown()
        try await client.shutdown()
    }
}
