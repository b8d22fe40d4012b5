/// Requests, tokens and money summed over some rollup rows.
public struct UsageTotals: Sendable, Equatable {
    public var requests: Int64
    public var inputTokens: Int64
    public var cachedInputTokens: Int64
    public var outputTokens: Int64
    public var costMicros: Int64

    /// Creates totals.
    public init(requests: Int64 = 0, inputTokens: Int64 = 0, cachedInputTokens: Int64 = 0, outputTokens: Int64 = 0,
                costMicros: Int64 = 0) {
        self.requests = requests
        self.inputTokens = inputTokens
        self.cachedInputTokens = cachedInputTokens
        self.outputTokens = outputTokens
        self.costMicros = costMicros
    }

    /// Adds other totals to these.
    public static func += (lhs: inout UsageTotals, rhs: UsageTotals) {
        lhs.requests += rhs.requests
        lhs.inputTokens += rhs.inputTokens
        lhs.cachedInputTokens += rhs.cachedInputTokens
        lhs.outputTokens += rhs.outputTokens
        lhs.costMicros += rhs.costMicros
    }
}
