import AsyncHTTPClient
import Logging
import ParleyCore
import ParleyProviders
import ServiceLifecycle

/// Asks the OpenAI-compatible providers for their model lists every `interval`, so that models added or withdrawn
/// upstream are offered or dropped without a restart. Runs beside the upstream client, and stops first.
struct ModelDiscoveryService: Service {
    let providers: ProviderSetup
    let catalog: ModelCatalog
    let client: HTTPClient
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                await providers.discoverModels(into: catalog, client: client, logger: logger)
            }
        }
    }
}
