import ParleyCore

/// The models Parley knows without configuration: each vendor's common current models with their published
/// context windows and prices (US dollars per million input, cached input and output tokens), under the
/// vendor's standard provider id, and whether each takes images and calls tools (all of them do function calling).
/// Gemini 2.5 Pro's price is the one for prompts up to 200K tokens.
enum BuiltInModels {
    /// Models of api.openai.com.
    static let openAI: [ModelInfo] = [
        ModelInfo(
            id: "gpt-4o-mini", providerID: "openai", contextWindow: 128_000, vision: true, tools: true,
            price: ModelPrice(input: 0.15, cachedInput: 0.075, output: 0.6)),
        ModelInfo(
            id: "gpt-4o", providerID: "openai", contextWindow: 128_000, vision: true, tools: true,
            price: ModelPrice(input: 2.5, cachedInput: 1.25, output: 10)),
        ModelInfo(
            id: "gpt-4.1", providerID: "openai", contextWindow: 1_047_576, vision: true, tools: true,
            price: ModelPrice(input: 2, cachedInput: 0.5, output: 8)),
        ModelInfo(
            id: "gpt-4.1-mini", providerID: "openai", contextWindow: 1_047_576, vision: true, tools: true,
            price: ModelPrice(input: 0.4, cachedInput: 0.1, output: 1.6)),
    ]

    /// Models of the Anthropic API; users pick the family name, the dated snapshot is sent.
    static let anthropic: [ModelInfo] = [
        ModelInfo(
            id: "claude-sonnet-4-5", upstreamID: "claude-sonnet-4-5-20250929", providerID: "anthropic",
            contextWindow: 200_000, vision: true, tools: true, price: ModelPrice(input: 3, cachedInput: 0.3, output: 15)
        ),
        ModelInfo(
            id: "claude-haiku-4-5", upstreamID: "claude-haiku-4-5-20251001", providerID: "anthropic",
            contextWindow: 200_000, vision: true, tools: true, price: ModelPrice(input: 1, cachedInput: 0.1, output: 5)),
        ModelInfo(
            id: "claude-opus-4-5", upstreamID: "claude-opus-4-5-20251101", providerID: "anthropic",
            contextWindow: 200_000, vision: true, tools: true, price: ModelPrice(input: 5, cachedInput: 0.5, output: 25)
        ),
        ModelInfo(
            id: "claude-opus-4-1", upstreamID: "claude-opus-4-1-20250805", providerID: "anthropic",
            contextWindow: 200_000, vision: true, tools: true,
            price: ModelPrice(input: 15, cachedInput: 1.5, output: 75)),
        ModelInfo(
            id: "claude-sonnet-4", upstreamID: "claude-sonnet-4-20250514", providerID: "anthropic",
            contextWindow: 200_000, vision: true, tools: true, price: ModelPrice(input: 3, cachedInput: 0.3, output: 15)
        ),
        ModelInfo(
            id: "claude-opus-4", upstreamID: "claude-opus-4-20250514", providerID: "anthropic",
            contextWindow: 200_000, vision: true, tools: true,
            price: ModelPrice(input: 15, cachedInput: 1.5, output: 75)),
        ModelInfo(
            id: "claude-3-5-haiku", upstreamID: "claude-3-5-haiku-20241022", providerID: "anthropic",
            contextWindow: 200_000, vision: false, tools: true,
            price: ModelPrice(input: 0.8, cachedInput: 0.08, output: 4)),
    ]

    /// Models of the Gemini API.
    static let gemini: [ModelInfo] = [
        ModelInfo(
            id: "gemini-2.5-pro", providerID: "gemini", contextWindow: 1_048_576, vision: true, tools: true,
            price: ModelPrice(input: 1.25, cachedInput: 0.31, output: 10)),
        ModelInfo(
            id: "gemini-2.5-flash", providerID: "gemini", contextWindow: 1_048_576, vision: true, tools: true,
            price: ModelPrice(input: 0.3, cachedInput: 0.075, output: 2.5)),
        ModelInfo(
            id: "gemini-2.5-flash-lite", providerID: "gemini", contextWindow: 1_048_576, vision: true, tools: true,
            price: ModelPrice(input: 0.1, cachedInput: 0.025, output: 0.4)),
        ModelInfo(
            id: "gemini-2.0-flash", providerID: "gemini", contextWindow: 1_048_576, vision: true, tools: true,
            price: ModelPrice(input: 0.1, cachedInput: 0.025, output: 0.4)),
    ]

    /// The built-in models of a kind's standard provider.
    static func models(of kind: ProviderKind) -> [ModelInfo] {
        switch kind {
        case .openai: openAI
        case .anthropic: anthropic
        case .gemini: gemini
        }
    }

    /// The built-in model with this id, the demo model included.
    static func model(_ id: String) -> ModelInfo? {
        (openAI + anthropic + gemini + [DemoProvider.model]).first { $0.id == id }
    }
}
