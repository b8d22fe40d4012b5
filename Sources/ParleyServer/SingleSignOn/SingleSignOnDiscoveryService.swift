import ServiceLifecycle

/// Reads the identity provider's discovery document at start-up without holding the start up, and again every
/// `retryDelay` until the provider answers, so that single sign-on comes back on its own after a provider outage.
struct SingleSignOnDiscoveryService: Service {
    let provider: OpenIDProvider
    let retryDelay: Duration

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                if (try? await provider.discovered()) != nil {
                    try? await gracefulShutdown()
                    return
                }
                do { try await Task.sleep(for: retryDelay) } catch { return }
            }
        }
    }
}
