/// A model's price in micro-dollars per million input, cached input and output tokens.
public struct TokenRates: Sendable, Equatable {
    public var input: Int64
    public var cachedInput: Int64
    public var output: Int64

    /// Creates rates.
    public init(input: Int64 = 0, cachedInput: Int64 = 0, output: Int64 = 0) {
        self.input = input
        self.cachedInput = cachedInput
        self.output = output
    }

    /// The rates of a price in dollars (the configuration's or the built-in table's), converted once at this edge.
    public init(_ price: ModelPrice) {
        self.init(
            input: MicroDollars.from(dollars: price.input), cachedInput: MicroDollars.from(dollars: price.cachedInput),
            output: MicroDollars.from(dollars: price.output))
    }

    /// What `usage` costs, rounded half up to the micro-dollar: the uncached prompt tokens at `input`, the cached ones
    /// at `cachedInput` and the completion at `output` (computed in 128 bits, clamped to Int64).
    public func cost(of usage: Usage) -> Int64 {
        let cached = Int128(max(0, min(usage.cachedPromptTokens, usage.promptTokens)))
        let uncached = Int128(max(0, usage.promptTokens)) - cached
        let total =
            uncached * Int128(input) + cached * Int128(cachedInput) + Int128(max(0, usage.completionTokens))
            * Int128(output)
        let micros = (total + 500_000) / 1_000_000
        return micros > Int128(Int64.max) ? .max : Int64(micros)
    }
}
