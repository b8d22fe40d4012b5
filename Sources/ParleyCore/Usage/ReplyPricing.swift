/// How a finished reply is charged: the model that answered, its provider, and the list price (the configuration's
/// or the built-in table's) that starts the model's price history when it has none yet.
public struct ReplyPricing: Sendable, Equatable {
    public var modelID: String
    public var providerID: String
    public var listRates: TokenRates

    /// Creates a pricing.
    public init(modelID: String, providerID: String, listRates: TokenRates) {
        self.modelID = modelID
        self.providerID = providerID
        self.listRates = listRates
    }

    /// The pricing of a reply written by `model`.
    public init(_ model: ModelInfo) {
        self.init(modelID: model.id, providerID: model.providerID, listRates: TokenRates(model.price))
    }
}
