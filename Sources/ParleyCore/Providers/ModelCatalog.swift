import Synchronization

/// The models users can pick and the providers that serve them; refreshable while the server runs.
public final class ModelCatalog: Sendable {
    private struct Contents {
        var models: [ModelInfo]
        var providers: [String: any ChatProvider]
        /// The ids of the models that came from a provider's model list (not the configuration), by provider.
        var discovered: [String: Set<String>] = [:]
    }

    private let contents: Mutex<Contents>
    /// Whether only the built-in demo model is available (no provider configured).
    public let isDemoOnly: Bool

    /// Creates a catalog; the first model is the default.
    public init(models: [ModelInfo], providers: [String: any ChatProvider], isDemoOnly: Bool) {
        contents = Mutex(Contents(models: models, providers: providers))
        self.isDemoOnly = isDemoOnly
    }

    /// Every model, in the order offered to users.
    public var models: [ModelInfo] { contents.withLock { $0.models } }

    /// The model picked when none is named.
    public var defaultModel: ModelInfo? { contents.withLock { $0.models.first } }

    /// The model with this id.
    public func model(_ id: String) -> ModelInfo? {
        contents.withLock { $0.models.first { $0.id == id } }
    }

    /// The provider serving a model.
    public func provider(for model: ModelInfo) -> (any ChatProvider)? {
        contents.withLock { $0.providers[model.providerID] }
    }

    /// Takes a provider's current model list: models it listed before are updated in place (a window learnt since),
    /// those not offered yet are added (a configured model of the same id wins), and those it no longer lists are
    /// withdrawn.
    public func setDiscoveredModels(_ listed: [ModelInfo], providerID: String) {
        contents.withLock { contents in
            let ids = Set(listed.map(\.id))
            let withdrawn = (contents.discovered[providerID] ?? []).subtracting(ids)
            contents.models.removeAll { $0.providerID == providerID && withdrawn.contains($0.id) }
            let kept = (contents.discovered[providerID] ?? []).subtracting(withdrawn)
            let relisted = Dictionary(listed.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            for index in contents.models.indices where contents.models[index].providerID == providerID {
                let id = contents.models[index].id
                if kept.contains(id), let model = relisted[id] { contents.models[index] = model }
            }
            let known = Set(contents.models.map(\.id))
            let added = listed.filter { !known.contains($0.id) }
            contents.models += added
            contents.discovered[providerID] = kept.union(added.map(\.id))
        }
    }
}
