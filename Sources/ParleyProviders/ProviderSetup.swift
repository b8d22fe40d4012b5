import AsyncHTTPClient
import Logging
import ParleyCore

/// Builds the model catalog from the environment: OpenAI-compatible servers when configured, else the demo model.
public struct ProviderSetup: Sendable {
    /// The default OpenAI base URL.
    public static let openAIBaseURL = "https://api.openai.com/v1"

    /// Models of api.openai.com with their prices (US dollars per million tokens).
    static let openAIModels: [ModelInfo] = [
        ModelInfo(id: "gpt-4o-mini", providerID: "openai", contextWindow: 128_000, vision: true,
                  price: ModelPrice(input: 0.15, cachedInput: 0.075, output: 0.6)),
        ModelInfo(id: "gpt-4o", providerID: "openai", contextWindow: 128_000, vision: true,
                  price: ModelPrice(input: 2.5, cachedInput: 1.25, output: 10)),
        ModelInfo(id: "gpt-4.1", providerID: "openai", contextWindow: 1_047_576, vision: true,
                  price: ModelPrice(input: 2, cachedInput: 0.5, output: 8)),
        ModelInfo(id: "gpt-4.1-mini", providerID: "openai", contextWindow: 1_047_576, vision: true,
                  price: ModelPrice(input: 0.4, cachedInput: 0.1, output: 1.6)),
    ]

    let environment: [String: String]
    let client: HTTPClient
    let demoTokenDelay: Duration

    /// Creates the setup from environment variables.
    public init(environment: [String: String], client: HTTPClient, demoTokenDelay: Duration = .milliseconds(25)) {
        self.environment = environment
        self.client = client
        self.demoTokenDelay = demoTokenDelay
    }

    /// The configured OpenAI-compatible provider, if any.
    var openAI: OpenAICompatibleProvider? {
        let key = environment["OPENAI_API_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        let base = environment["OPENAI_BASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        guard key != nil || base != nil else { return nil }
        return OpenAICompatibleProvider(name: "OpenAI", baseURL: base ?? Self.openAIBaseURL, apiKey: key, client: client)
    }

    /// The catalog: built-in models of the configured providers, or only the demo model when none is.
    public func makeCatalog() -> ModelCatalog {
        guard let openAI else {
            return ModelCatalog(models: [DemoProvider.model], providers: ["demo": DemoProvider(tokenDelay: demoTokenDelay)],
                                isDemoOnly: true)
        }
        let builtIn = openAI.baseURL == Self.openAIBaseURL ? Self.openAIModels : []
        return ModelCatalog(models: builtIn, providers: ["openai": openAI], isDemoOnly: false)
    }

    /// Adds the models an OpenAI-compatible server lists; a discovered model without a price costs 0.
    public func discoverModels(into catalog: ModelCatalog, logger: Logger) async {
        guard let openAI else { return }
        do {
            let ids = try await openAI.listModels()
            catalog.addModels(ids.map { ModelInfo(id: $0, providerID: "openai") })
            logger.info("discovered models", metadata: ["count": "\(ids.count)"])
        } catch {
            logger.warning("model discovery failed", metadata: ["error": "\(error)"])
        }
    }
}
