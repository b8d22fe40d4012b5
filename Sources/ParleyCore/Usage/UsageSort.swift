/// How the dashboard's tables are ordered, as named in `?sort=`: the largest first, except by name.
public enum UsageSort: String, Sendable {
    case cost, requests, input, output, name

    /// The order named by a query value; the default (cost) for a missing or unknown one.
    public init(query: String?) {
        self = query.flatMap(UsageSort.init(rawValue:)) ?? .cost
    }

    /// Whether `lhs` comes before `rhs` in this order (ties by name).
    public func orders(_ lhs: (name: String, totals: UsageTotals), before rhs: (name: String, totals: UsageTotals))
        -> Bool
    {
        let key = { (totals: UsageTotals) -> Int64 in
            switch self {
            case .cost: totals.costMicros
            case .requests: totals.requests
            case .input: totals.inputTokens
            case .output: totals.outputTokens
            case .name: 0
            }
        }
        let (left, right) = (key(lhs.totals), key(rhs.totals))
        return left != right ? left > right : lhs.name < rhs.name
    }
}
