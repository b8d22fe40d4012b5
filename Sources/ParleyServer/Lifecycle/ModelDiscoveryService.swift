import AsyncHTTPClient
import Logging
import ParleyCore
import ParleyProviders
import ServiceLifecycle

/// Asks the OpenAI-compatible providers for their model lists in the background: again at once when the start-up's
/// ask did not finish in time, then after `retryDelay` (doubling) while any provider does not answer, and every
/// `interval` once all have (never again when `interval` is nil), so that models added or withdrawn upstream are
/// offered or dropped without a restart. Runs beside the upstream client, and stops first.
struct ModelDiscoveryService: Service {
    let providers: ProviderSetup
    let catalog: ModelCatalog
    let client: HTTPClient
    let interval: Duration?
    let retryDelay: Duration
    /// Whether the start-up's ask had every provider's answer.
    let answeredAtStart: Bool
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var answered = answeredAtStart
            var retry: Duration = .zero
            while !Task.isCancelled {
                let wait: Duration
                if answered {
                    // A service that returns would stop the whole service group: this one waits for the shutdown.
                    guard let interval else {
                        try? await gracefulShutdown()
                        return
                    }
                    wait = interval
                    retry = .zero
                } else {
                    wait = min(retry, interval ?? .seconds(600))
                    retry = retry == .zero ? retryDelay : retry * 2
                }
                do { try await Task.sleep(for: wait) } catch { return }
                answered = await providers.discoverModels(into: catalog, client: client, logger: logger)
            }
        }
    }

    /// Asks the providers for their models, waiting at most `limit` (the server starts without the slow ones, which
    /// the service asks again); returns whether every provider answered in time.
    static func discoverAtStart(
        _ providers: ProviderSetup, into catalog: ModelCatalog, client: HTTPClient, logger: Logger,
        within limit: Duration
    ) async -> Bool {
        await withTaskGroup(of: Bool?.self) { group in
            group.addTask { await providers.discoverModels(into: catalog, client: client, logger: logger) }
            group.addTask {
                try? await Task.sleep(for: limit); return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? false
        }
    }
}
