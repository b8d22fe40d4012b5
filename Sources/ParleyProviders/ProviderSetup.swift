import AsyncHTTPClient
import Logging
import ParleyCore
import ParleyImaging

/// Builds the model catalog from the environment and the optional `PARLEY_CONFIG` file: the vendors whose key or
/// base URL is set, the file's providers and models, the built-in models of the vendors' standard providers, and
/// the models OpenAI-compatible servers list. With no provider at all, only the demo model.
public struct ProviderSetup: Sendable {
    /// A configured provider, before it has an HTTP client.
    struct Resolved: Sendable, Equatable {
        /// The id models name: `openai`, `anthropic` or `gemini` for the vendors' standard providers, else the file's.
        let id: String
        let kind: ProviderKind
        /// The name shown to users.
        let name: String
        let baseURL: String
        let apiKey: String?
    }

    /// Every provider, the environment's first, in order.
    let providers: [Resolved]
    /// The models the file lists, completed from the built-in table.
    let configuredModels: [ModelInfo]
    /// Problems worth an admin's attention that do not stop the server (a key variable that is not set).
    let warnings: [String]
    let timeouts: UpstreamTimeouts
    let demoTokenDelay: Duration
    /// Fits images to each vendor's limits, with one cache for every provider.
    let images = ImageFitter()

    /// Resolves the providers and models; throws when the file is unreadable, malformed, or names an unknown provider.
    public init(
        environment: [String: String], configPath: String? = nil, timeouts: UpstreamTimeouts = UpstreamTimeouts(),
        demoTokenDelay: Duration = .milliseconds(25)
    ) throws(ProviderConfigError) {
        let config = try configPath.map { path throws(ProviderConfigError) in try ProviderConfig.load(path: path) }
        let value = { (name: String) in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        var providers: [Resolved] = []
        var warnings: [String] = []
        for kind in ProviderKind.allCases {
            let key = value(kind.keyVariable)
            let base = value(kind.baseURLVariable)
            guard key != nil || base != nil else { continue }
            providers.append(
                Resolved(
                    id: kind.rawValue, kind: kind, name: kind.displayName, baseURL: base ?? kind.defaultBaseURL,
                    apiKey: key))
        }
        for entry in config?.providers ?? [] {
            let kind = entry.kind ?? ProviderKind(rawValue: entry.id) ?? .openai
            // A vendor's standard id extends its environment variables; any other id gets a key only when it names one,
            // so that a vendor's key never goes to another server.
            let isStandard = entry.id == kind.rawValue
            let key = (entry.apiKeyEnv ?? (isStandard ? kind.keyVariable : nil)).flatMap(value)
            if let variable = entry.apiKeyEnv, key == nil {
                warnings.append(
                    "provider “\(entry.id)”: api_key_env names \(variable), which is not set; requests go without a key"
                )
            } else if key == nil, kind.requiresKey {
                warnings.append("provider “\(entry.id)” has no API key; set api_key_env in PARLEY_CONFIG")
            }
            let resolved = Resolved(
                id: entry.id, kind: kind, name: isStandard ? kind.displayName : entry.id,
                baseURL: entry.baseURL ?? (isStandard ? value(kind.baseURLVariable) : nil) ?? kind.defaultBaseURL,
                apiKey: key)
            if let index = providers.firstIndex(where: { $0.id == entry.id }) {
                providers[index] = resolved
            } else {
                providers.append(resolved)
            }
        }
        let providerIDs = providers.map(\.id)
        configuredModels = try (config?.models ?? []).enumerated().map { index, entry throws(ProviderConfigError) in
            try Self.model(entry, place: "models[\(index)]", providerIDs: providerIDs, file: configPath ?? "")
        }
        self.providers = providers
        self.warnings = warnings
        self.timeouts = timeouts
        self.demoTokenDelay = demoTokenDelay
    }

    /// A model of the file, completed from the built-in entry of the same id and provider.
    private static func model(
        _ entry: ProviderConfig.Model, place: String, providerIDs: [String],
        file: String
    ) throws(ProviderConfigError) -> ModelInfo {
        let builtIn = BuiltInModels.model(entry.id)
        let providerID: String
        if let named = entry.provider ?? builtIn?.providerID {
            providerID = named
        } else if providerIDs.count == 1 {
            providerID = providerIDs[0]
        } else {
            throw ProviderConfigError(
                file: file,
                problem: "\(place) (“\(entry.id)”) names no provider, and \(providerIDs.count) are configured")
        }
        guard providerIDs.contains(providerID) || providerID == DemoProvider.model.providerID else {
            throw ProviderConfigError(
                file: file,
                problem: "\(place) (“\(entry.id)”) names the provider “\(providerID)”, "
                    + "which is neither in providers nor set in the environment")
        }
        var model =
            builtIn.flatMap { $0.providerID == providerID ? $0 : nil }
            ?? ModelInfo(id: entry.id, providerID: providerID)
        if let upstreamID = entry.upstreamID { model.upstreamID = upstreamID }
        if let window = entry.contextWindow { model.contextWindow = Int(window) }
        if let vision = entry.vision { model.vision = vision }
        if let tools = entry.tools { model.tools = tools }
        if let price = entry.price {
            model.price = ModelPrice(
                input: price.input ?? model.price.input, cachedInput: price.cachedInput ?? model.price.cachedInput,
                output: price.output ?? model.price.output)
        }
        if let fallback = entry.fallback { model.fallback = fallback }
        if let budget = entry.thinkingBudget { model.thinkingBudget = Int(budget) }
        if let limit = entry.maxOutputTokens { model.maxOutputTokens = Int(limit) }
        if let defaults = entry.defaults {
            do throws(ChatError) {
                try defaults.validate(for: model)
            } catch {
                throw ProviderConfigError(file: file, problem: "\(place) (“\(entry.id)”) defaults: \(error.problem)")
            }
            model.defaultOptions = defaults
        }
        if entry.kind == "image" {
            model.generatesImages = true
            // An image is the unit an image model's output is counted in; prices are per million units.
            if let perImage = entry.price?.perImage { model.price = ModelPrice(output: perImage * 1_000_000) }
        }
        return model
    }

    /// The catalog: the file's models, then the built-in models of the standard providers (OpenAI's only at
    /// api.openai.com), every provider reached through `client`; only the demo model when no provider is configured.
    /// Logs the warnings.
    public func makeCatalog(client: HTTPClient, logger: Logger) -> ModelCatalog {
        for warning in warnings { logger.warning("\(warning)") }
        let demo = DemoProvider(tokenDelay: demoTokenDelay)
        guard !providers.isEmpty else {
            return ModelCatalog(
                models: [DemoProvider.model], providers: [DemoProvider.model.providerID: demo], isDemoOnly: true)
        }
        var models = configuredModels
        var chatProviders: [String: any ChatProvider] = [:]
        for provider in providers {
            let connection = self.connection(to: provider, client: client)
            chatProviders[provider.id] = provider.kind.makeProvider(connection)
            guard provider.id == provider.kind.rawValue,
                provider.kind != .openai || connection.baseURL == ProviderKind.openai.defaultBaseURL
            else { continue }
            let known = Set(models.map(\.id))
            models += BuiltInModels.models(of: provider.kind).filter { !known.contains($0.id) }
        }
        // Anthropic takes temperatures up to 1; the others up to 2.
        let anthropic = Set(providers.filter { $0.kind == .anthropic }.map(\.id))
        for index in models.indices where anthropic.contains(models[index].providerID) {
            models[index].maxTemperature = 1
        }
        if chatProviders[DemoProvider.model.providerID] == nil,
            models.contains(where: { $0.providerID == DemoProvider.model.providerID })
        {
            chatProviders[DemoProvider.model.providerID] = demo
        }
        return ModelCatalog(models: models, providers: chatProviders, isDemoOnly: false)
    }

    /// Adds the models every OpenAI-compatible provider lists (asked side by side, added in provider order);
    /// a discovered model without a price costs 0, and an id already offered keeps its first provider. A provider
    /// that does not answer keeps the models it listed last. The models are offered as soon as they are listed; the
    /// windows their servers give outside the list (llama.cpp, Ollama) are filled in after. Returns whether every
    /// provider answered.
    @discardableResult
    public func discoverModels(into catalog: ModelCatalog, client: HTTPClient, logger: Logger) async -> Bool {
        let servers = providers.filter { $0.kind == .openai }.map { provider in
            (id: provider.id, server: OpenAICompatibleProvider(connection: connection(to: provider, client: client)))
        }
        let listed = await withTaskGroup(of: (String, Result<[ListedModel], ProviderError>).self) { group in
            for (id, server) in servers {
                group.addTask {
                    do throws(ProviderError) {
                        return (id, .success(try await server.listModels()))
                    } catch {
                        return (id, .failure(error))
                    }
                }
            }
            return await group.reduce(into: [String: Result<[ListedModel], ProviderError>]()) { $0[$1.0] = $1.1 }
        }
        var answered: [(id: String, server: OpenAICompatibleProvider, models: [ListedModel])] = []
        for (id, server) in servers {
            switch listed[id] {
            case .success(let models):
                Self.offer(models, of: id, in: catalog)
                logger.info("discovered models", metadata: ["provider": "\(id)", "count": "\(models.count)"])
                answered.append((id, server, models))
            case .failure(let error):
                logger.warning("model discovery failed", metadata: ["provider": "\(id)", "error": "\(error)"])
            case nil:
                break
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for (id, server, models) in answered where models.contains(where: { $0.contextWindow == nil }) {
                group.addTask {
                    let windowed = await server.withServerWindows(models)
                    if windowed != models { Self.offer(windowed, of: id, in: catalog) }
                }
            }
        }
        return !listed.values.contains { if case .failure = $0 { true } else { false } }
    }

    /// Offers a provider's listed models in the catalog, with the default window where none is known.
    private static func offer(_ models: [ListedModel], of providerID: String, in catalog: ModelCatalog) {
        catalog.setDiscoveredModels(
            models.map { model in
                ModelInfo(
                    id: model.id, providerID: providerID,
                    contextWindow: model.contextWindow ?? ModelInfo.discoveredContextWindow)
            }, providerID: providerID)
    }

    /// How `provider` is reached through `client`.
    private func connection(to provider: Resolved, client: HTTPClient) -> ProviderConnection {
        ProviderConnection(
            name: provider.name, baseURL: provider.baseURL, apiKey: provider.apiKey, client: client,
            timeouts: timeouts, images: images)
    }
}
