import Foundation

/// One version of a model's price: replies that end from `effectiveFrom` on (until the next version) are charged at it,
/// and keep the version they were charged at when the price changes.
public struct PriceVersion: Sendable, Equatable {
    public var id: Int64
    public var modelID: String
    public var rates: TokenRates
    public var effectiveFrom: Date

    /// Creates a price version.
    public init(id: Int64, modelID: String, rates: TokenRates, effectiveFrom: Date) {
        self.id = id
        self.modelID = modelID
        self.rates = rates
        self.effectiveFrom = effectiveFrom
    }
}
