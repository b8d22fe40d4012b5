/// Requests, tokens and money summed over some rollup rows; `estimatedTokens` and `estimatedCostMicros` are the part of
/// the tokens and cost that Parley estimated because the provider reported no usage, `titleTokens` and
/// `titleCostMicros` the part spent asking for conversations' titles, `reasoningTokens` the part of the output tokens
/// that models spent reasoning, `apiRequests`, `apiTokens` and `apiCostMicros` the part asked through the
/// OpenAI-compatible endpoint rather than in conversations.
public struct UsageTotals: Sendable, Equatable {
    public var requests: Int64
    public var inputTokens: Int64
    public var cachedInputTokens: Int64
    public var outputTokens: Int64
    public var reasoningTokens: Int64
    public var costMicros: Int64
    public var estimatedTokens: Int64
    public var estimatedCostMicros: Int64
    public var titleTokens: Int64
    public var titleCostMicros: Int64
    public var apiRequests: Int64
    public var apiTokens: Int64
    public var apiCostMicros: Int64
    /// The part of the input tokens that was documents' text sent as sources.
    public var documentTokens: Int64 = 0

    /// Creates totals.
    public init(
        requests: Int64 = 0, inputTokens: Int64 = 0, cachedInputTokens: Int64 = 0, outputTokens: Int64 = 0,
        reasoningTokens: Int64 = 0, costMicros: Int64 = 0, estimatedTokens: Int64 = 0, estimatedCostMicros: Int64 = 0,
        titleTokens: Int64 = 0, titleCostMicros: Int64 = 0, apiRequests: Int64 = 0, apiTokens: Int64 = 0,
        apiCostMicros: Int64 = 0
    ) {
        self.requests = requests
        self.inputTokens = inputTokens
        self.cachedInputTokens = cachedInputTokens
        self.outputTokens = outputTokens
        self.reasoningTokens = reasoningTokens
        self.costMicros = costMicros
        self.estimatedTokens = estimatedTokens
        self.estimatedCostMicros = estimatedCostMicros
        self.titleTokens = titleTokens
        self.titleCostMicros = titleCostMicros
        self.apiRequests = apiRequests
        self.apiTokens = apiTokens
        self.apiCostMicros = apiCostMicros
    }

    /// The totals of one charged reply.
    public init(reply usage: Usage) {
        let tokens = Int64(usage.promptTokens + usage.completionTokens)
        self.init(
            requests: 1, inputTokens: Int64(usage.promptTokens), cachedInputTokens: Int64(usage.cachedPromptTokens),
            outputTokens: Int64(usage.completionTokens), reasoningTokens: Int64(usage.reasoningTokens),
            costMicros: usage.costMicros,
            estimatedTokens: usage.estimated ? tokens : 0, estimatedCostMicros: usage.estimated ? usage.costMicros : 0)
    }

    /// Adds other totals to these.
    public static func += (lhs: inout UsageTotals, rhs: UsageTotals) {
        lhs.requests += rhs.requests
        lhs.inputTokens += rhs.inputTokens
        lhs.cachedInputTokens += rhs.cachedInputTokens
        lhs.outputTokens += rhs.outputTokens
        lhs.reasoningTokens += rhs.reasoningTokens
        lhs.costMicros += rhs.costMicros
        lhs.estimatedTokens += rhs.estimatedTokens
        lhs.estimatedCostMicros += rhs.estimatedCostMicros
        lhs.titleTokens += rhs.titleTokens
        lhs.titleCostMicros += rhs.titleCostMicros
        lhs.apiRequests += rhs.apiRequests
        lhs.apiTokens += rhs.apiTokens
        lhs.apiCostMicros += rhs.apiCostMicros
        lhs.documentTokens += rhs.documentTokens
    }
}
