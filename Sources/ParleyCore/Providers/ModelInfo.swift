/// Prices in US dollars per million tokens.
public struct ModelPrice: Sendable, Equatable, Codable {
    public var input: Double
    public var cachedInput: Double
    public var output: Double

    /// Creates a price.
    public init(input: Double = 0, cachedInput: Double = 0, output: Double = 0) {
        self.input = input
        self.cachedInput = cachedInput
        self.output = output
    }

    /// The cost of a number of prompt and completion tokens.
    public func cost(promptTokens: Int, completionTokens: Int) -> Double {
        (Double(promptTokens) * input + Double(completionTokens) * output) / 1_000_000
    }
}

/// A model users can pick, and how to reach it.
public struct ModelInfo: Sendable, Equatable {
    /// The provider id of the built-in demo model.
    public static let demoProviderID = "demo"
    /// The context window assumed for a model a server lists without one: small, so that trimming errs safe (a
    /// self-hosted server often runs a model with a window of a few thousand tokens).
    public static let discoveredContextWindow = 8_192

    /// The name users pick.
    public var id: String

    /// How the model is named in lists: its id, or for an id that is a model file's path (as llama.cpp's servers list
    /// one) the file's name without its `.gguf` extension; at most 60 characters.
    public var displayName: String {
        var name = id
        let isFile = id.hasPrefix("/") || id.hasPrefix("./") || id.hasPrefix("~") || id.lowercased().hasSuffix(".gguf")
        if isFile, let file = id.split(separator: "/").last {
            name = String(file)
            if name.lowercased().hasSuffix(".gguf"), name.count > 5 { name.removeLast(5) }
        }
        return name.count > 60 ? String(name.prefix(59)) + "…" : name
    }
    /// The name sent to the provider.
    public var upstreamID: String
    public var providerID: String
    public var contextWindow: Int
    public var vision: Bool
    /// Whether the model can call tools (function calling); only such a model is offered any.
    public var tools: Bool
    public var price: ModelPrice
    /// The model to try instead when this one fails before its first token (the generation's retry loop decides).
    public var fallback: String?
    /// Whether the model draws a picture for each message (an `images/generations` model) instead of writing a reply;
    /// its price's `output` is then per million images.
    public var generatesImages: Bool
    /// Tokens the model may think for, asked of vendors that think only when asked and then show it (Anthropic's
    /// extended thinking, Gemini's thoughts); nil: the vendor's default (none shown).
    public var thinkingBudget: Int?
    /// The options a conversation (or API call) of this model starts from (`PARLEY_CONFIG`'s `defaults`).
    public var defaultOptions = GenerationOptions()
    /// The most output tokens a request may ask of this model (nil: no limit Parley knows).
    public var maxOutputTokens: Int?
    /// The highest temperature the model's vendor takes (Anthropic's 1, the others' 2).
    public var maxTemperature = 2.0

    /// Creates a model description.
    public init(
        id: String, upstreamID: String? = nil, providerID: String, contextWindow: Int = 128_000,
        vision: Bool = false, tools: Bool = false, price: ModelPrice = ModelPrice(), fallback: String? = nil,
        generatesImages: Bool = false
    ) {
        self.id = id
        self.upstreamID = upstreamID ?? id
        self.providerID = providerID
        self.contextWindow = contextWindow
        self.vision = vision
        self.tools = tools
        self.price = price
        self.fallback = fallback
        self.generatesImages = generatesImages
    }
}
