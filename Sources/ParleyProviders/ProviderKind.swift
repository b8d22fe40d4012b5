import ParleyCore

/// The wire formats Parley speaks, with each vendor's defaults.
public enum ProviderKind: String, Sendable, CaseIterable, Decodable {
    /// OpenAI's Chat Completions, spoken by many servers.
    case openai
    /// Anthropic's Messages API.
    case anthropic
    /// Google's Gemini API.
    case gemini

    /// Reads a kind, naming the accepted ones when it is unknown.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let kind = ProviderKind(rawValue: name) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "unknown kind “\(name)” (expected openai, anthropic or gemini)")
        }
        self = kind
    }

    /// The name shown to users for the provider configured from the environment.
    var displayName: String {
        switch self {
        case .openai: "OpenAI"
        case .anthropic: "Anthropic"
        case .gemini: "Gemini"
        }
    }

    /// The base URL used when none is configured, as the vendor's SDK takes it.
    public var defaultBaseURL: String {
        switch self {
        case .openai: "https://api.openai.com/v1"
        case .anthropic: "https://api.anthropic.com"
        case .gemini: "https://generativelanguage.googleapis.com"
        }
    }

    /// The environment variable holding the vendor's API key.
    var keyVariable: String {
        switch self {
        case .openai: "OPENAI_API_KEY"
        case .anthropic: "ANTHROPIC_API_KEY"
        case .gemini: "GEMINI_API_KEY"
        }
    }

    /// The environment variable holding the vendor's base URL.
    var baseURLVariable: String {
        switch self {
        case .openai: "OPENAI_BASE_URL"
        case .anthropic: "ANTHROPIC_BASE_URL"
        case .gemini: "GEMINI_BASE_URL"
        }
    }

    /// Whether every server of this kind needs a key (an OpenAI-compatible one such as Ollama may not).
    var requiresKey: Bool { self != .openai }

    /// The provider speaking this wire format over `connection`.
    func makeProvider(_ connection: ProviderConnection) -> any ChatProvider {
        switch self {
        case .openai: OpenAICompatibleProvider(connection: connection)
        case .anthropic: AnthropicProvider(connection: connection)
        case .gemini: GeminiProvider(connection: connection)
        }
    }
}
