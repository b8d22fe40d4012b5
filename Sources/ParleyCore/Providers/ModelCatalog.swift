import Synchronization

/// The models users can pick and the providers that serve them; refreshable while the server runs.
public final class ModelCatalog: Sendable {
    private struct Contents {
        var models: [ModelInfo]
        var providers: [String: any ChatProvider]
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

    /// Adds models that are not listed yet (for example, discovered from a provider).
    public func addModels(_ discovered: [ModelInfo]) {
        contents.withLock { contents in
            let known = Set(contents.models.map(\.id))
            contents.models += discovered.filter { !known.contains($0.id) }
        }
    }
}
