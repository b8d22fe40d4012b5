import Foundation
import ParleyCore

/// The `PARLEY_CONFIG` file: the providers to talk to and the models to offer. Keys are snake_case; every key
/// but `id` is optional, and keys Parley does not know are ignored.
public struct ProviderConfig: Sendable, Equatable, Decodable {
    /// A provider: its id (which models name), wire format, base URL and the variable holding its key.
    public struct Provider: Sendable, Equatable, Decodable {
        public var id: String
        public var kind: ProviderKind?
        public var baseURL: String?
        public var apiKeyEnv: String?
        enum CodingKeys: String, CodingKey { case id, kind, baseURL = "base_url", apiKeyEnv = "api_key_env" }
    }

    /// A model; what it leaves out comes from the built-in table when that has the model for the same provider.
    public struct Model: Sendable, Equatable, Decodable {
        public var id: String
        public var provider: String?
        public var upstreamID: String?
        /// A number, so that a fractional value gets a clear message rather than a decoding failure.
        public var contextWindow: Double?
        public var vision: Bool?
        /// Whether the model calls tools (function calling); off for a model neither this nor the built-in table
        /// says does.
        public var tools: Bool?
        public var price: Price?
        public var fallback: String?
        /// `chat` (the default) or `image` (an `images/generations` model).
        public var kind: String?
        /// Tokens an Anthropic or Gemini model may think for before answering, its thinking shown (a number, as
        /// `contextWindow`).
        public var thinkingBudget: Double?
        /// The most output tokens a request may ask (a number, as `contextWindow`).
        public var maxOutputTokens: Double?
        /// The generation options the model's conversations and API calls start from.
        public var defaults: GenerationOptions?
        enum CodingKeys: String, CodingKey {
            case id, provider, upstreamID = "upstream_id", contextWindow = "context_window", vision, tools, price,
                fallback,
                kind, thinkingBudget = "thinking_budget", maxOutputTokens = "max_output_tokens", defaults
        }
    }

    /// Prices in US dollars per million tokens.
    public struct Price: Sendable, Equatable, Decodable {
        public var input: Double?
        public var cachedInput: Double?
        public var output: Double?
        /// Dollars per generated image (image models).
        public var perImage: Double?
        enum CodingKeys: String, CodingKey { case input, cachedInput = "cached_input", output, perImage = "per_image" }
    }

    public var providers: [Provider]
    public var models: [Model]

    enum CodingKeys: String, CodingKey { case providers, models }

    /// Creates a configuration.
    public init(providers: [Provider] = [], models: [Model] = []) {
        self.providers = providers
        self.models = models
    }

    /// Reads the lists, each optional.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        providers = try container.decodeIfPresent([Provider].self, forKey: .providers) ?? []
        models = try container.decodeIfPresent([Model].self, forKey: .models) ?? []
    }

    /// Reads, decodes and checks the file at `path`.
    public static func load(path: String) throws(ProviderConfigError) -> ProviderConfig {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ProviderConfigError(file: path, problem: "cannot be read (missing, or not readable by this user)")
        }
        return try decode(data, file: path)
    }

    /// Decodes and checks the contents of a config file; `file` names it in errors.
    static func decode(_ data: Data, file: String) throws(ProviderConfigError) -> ProviderConfig {
        let config: ProviderConfig
        do {
            config = try JSONDecoder().decode(ProviderConfig.self, from: data)
        } catch let error as DecodingError {
            throw ProviderConfigError(file: file, problem: problem(of: error, in: data))
        } catch {
            throw ProviderConfigError(file: file, problem: "\(error)")
        }
        if let problem = config.problem() { throw ProviderConfigError(file: file, problem: problem) }
        return config
    }

    /// The first thing decoding cannot catch: empty or repeated ids, a base URL that is not http(s),
    /// a context window that is not a positive whole number, a negative price.
    private func problem() -> String? {
        var providerIDs: Set<String> = []
        for (index, provider) in providers.enumerated() {
            let place = "providers[\(index)]"
            if provider.id.isEmpty { return "\(place).id is empty" }
            if !providerIDs.insert(provider.id).inserted { return "\(place).id “\(provider.id)” is used twice" }
            if let url = provider.baseURL, !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
                return "\(place).base_url must start with http:// or https://"
            }
            if provider.apiKeyEnv?.isEmpty == true { return "\(place).api_key_env is empty" }
        }
        var modelIDs: Set<String> = []
        for (index, model) in models.enumerated() {
            let place = "models[\(index)]"
            if model.id.isEmpty { return "\(place).id is empty" }
            if !modelIDs.insert(model.id).inserted { return "\(place).id “\(model.id)” is used twice" }
            if let window = model.contextWindow,
                !(window >= 1 && window <= Double(Int32.max) && window.rounded() == window)
            {
                return "\(place).context_window must be a positive whole number"
            }
            if let budget = model.thinkingBudget,
                !(budget >= 1 && budget <= Double(Int32.max) && budget.rounded() == budget)
            {
                return "\(place).thinking_budget must be a positive whole number of tokens"
            }
            if let limit = model.maxOutputTokens,
                !(limit >= 1 && limit <= Double(Int32.max) && limit.rounded() == limit)
            {
                return "\(place).max_output_tokens must be a positive whole number of tokens"
            }
            if let kind = model.kind, !["chat", "image"].contains(kind) {
                return "\(place).kind must be chat or image, not “\(kind)”"
            }
            let prices = [
                ("input", model.price?.input), ("cached_input", model.price?.cachedInput),
                ("output", model.price?.output),
                ("per_image", model.price?.perImage),
            ]
            if let (name, _) = prices.first(where: { ($0.1 ?? 0) < 0 }) {
                return "\(place).price.\(name) must not be negative"
            }
        }
        return nil
    }

    /// A decoding error as a sentence naming the place in the file.
    private static func problem(of error: DecodingError, in data: Data) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return "\(place(context.codingPath + [key])) is missing"
        case .valueNotFound(_, let context):
            return "\(place(context.codingPath)) must not be null"
        case .typeMismatch(let type, let context):
            return "\(place(context.codingPath)) must be \(article(for: type))"
        case .dataCorrupted(let context) where !context.codingPath.isEmpty:
            return "\(place(context.codingPath)): \(context.debugDescription)"
        case .dataCorrupted:
            // JSONDecoder says no more than "not valid JSON"; JSONSerialization says where.
            var detail = ""
            do { _ = try JSONSerialization.jsonObject(with: data) } catch {
                detail = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String).map { " (\($0))" } ?? ""
            }
            return "is not valid JSON\(detail)"
        @unknown default:
            return "\(error)"
        }
    }

    /// A coding path as written in messages: `models[2].price.input`, or "the file" for the top level.
    private static func place(_ path: [any CodingKey]) -> String {
        guard !path.isEmpty else { return "the file" }
        return path.enumerated().map { index, key in
            key.intValue.map { "[\($0)]" } ?? (index == 0 ? key.stringValue : "." + key.stringValue)
        }.joined()
    }

    /// The JSON kind of value a Swift type is read from, with its article.
    private static func article(for type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Double.Type: "a number"
        case is Bool.Type: "true or false"
        case is [Any].Type: "a list"
        default: "an object"
        }
    }
}
