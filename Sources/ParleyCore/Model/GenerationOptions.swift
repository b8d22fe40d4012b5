import Foundation

/// How hard a reasoning model thinks before it answers: OpenAI's `reasoning_effort` as is, and for vendors that take a
/// thinking budget (Anthropic, Gemini) that many tokens.
public enum ReasoningEffort: String, Sendable, Codable, CaseIterable {
    case low, medium, high

    /// The thinking budget this effort asks of Anthropic and Gemini (Anthropic's least is 1,024).
    public var thinkingBudget: Int {
        switch self {
        case .low: 1_024
        case .medium: 4_096
        case .high: 16_384
        }
    }
}

/// How a model is asked to write: sampling, length, stops and reasoning effort; a value left nil (or no stops) is the
/// model's configured default, else the provider's own.
public struct GenerationOptions: Sendable, Equatable, Codable {
    /// The most stop sequences (OpenAI's limit, the strictest vendor's).
    public static let maxStops = 4
    /// The longest stop sequence, in characters.
    public static let maxStopLength = 100

    public var temperature: Double?
    public var topP: Double?
    public var maxTokens: Int?
    public var stop: [String]
    public var reasoningEffort: ReasoningEffort?

    /// Creates options.
    public init(
        temperature: Double? = nil, topP: Double? = nil, maxTokens: Int? = nil, stop: [String] = [],
        reasoningEffort: ReasoningEffort? = nil
    ) {
        self.temperature = temperature
        self.topP = topP
        self.maxTokens = maxTokens
        self.stop = stop
        self.reasoningEffort = reasoningEffort
    }

    enum CodingKeys: String, CodingKey {
        case temperature, topP = "top_p", maxTokens = "max_tokens", stop, reasoningEffort = "reasoning_effort"
    }

    /// Reads the snake-case keys, also as a decoder converting from snake case hands them over (`topP`), and a
    /// missing `stop` as none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FlexibleKey.self)
        func key(_ snake: CodingKeys, _ camel: String) -> FlexibleKey {
            let snakeKey = FlexibleKey(stringValue: snake.rawValue)
            return container.contains(snakeKey) ? snakeKey : FlexibleKey(stringValue: camel)
        }
        temperature = try container.decodeIfPresent(Double.self, forKey: key(.temperature, "temperature"))
        topP = try container.decodeIfPresent(Double.self, forKey: key(.topP, "topP"))
        maxTokens = try container.decodeIfPresent(Int.self, forKey: key(.maxTokens, "maxTokens"))
        stop = try container.decodeIfPresent([String].self, forKey: key(.stop, "stop")) ?? []
        reasoningEffort = try container.decodeIfPresent(
            ReasoningEffort.self, forKey: key(.reasoningEffort, "reasoningEffort"))
    }

    /// Writes the values set (no empty `stop`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(temperature, forKey: .temperature)
        try container.encodeIfPresent(topP, forKey: .topP)
        try container.encodeIfPresent(maxTokens, forKey: .maxTokens)
        if !stop.isEmpty { try container.encode(stop, forKey: .stop) }
        try container.encodeIfPresent(reasoningEffort, forKey: .reasoningEffort)
    }

    /// A key by its text, either spelling.
    private struct FlexibleKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Whether nothing is set.
    public var isEmpty: Bool { self == GenerationOptions() }

    /// These options over `defaults`: each value set here wins, the rest come from `defaults`.
    public func over(_ defaults: GenerationOptions) -> GenerationOptions {
        GenerationOptions(
            temperature: temperature ?? defaults.temperature, topP: topP ?? defaults.topP,
            maxTokens: maxTokens ?? defaults.maxTokens, stop: stop.isEmpty ? defaults.stop : stop,
            reasoningEffort: reasoningEffort ?? defaults.reasoningEffort)
    }

    /// Checks each value against the range `model` takes (its vendor's temperature range, its output limit), throwing
    /// `.invalidSetting` naming the first one outside it.
    public func validate(for model: ModelInfo) throws(ChatError) {
        if let temperature, !(0...model.maxTemperature).contains(temperature) {
            throw .invalidSetting("temperature must be 0 to \(Self.decimal(model.maxTemperature)) for \(model.id).")
        }
        if let topP, !(0...1).contains(topP) { throw .invalidSetting("top_p must be 0 to 1.") }
        if let maxTokens {
            let limit = model.maxOutputTokens ?? Int(Int32.max)
            guard (1...limit).contains(maxTokens) else {
                throw .invalidSetting("max_tokens must be 1 to \(limit) for \(model.id).")
            }
        }
        guard stop.count <= Self.maxStops, stop.allSatisfy({ !$0.isEmpty && $0.count <= Self.maxStopLength }) else {
            throw .invalidSetting(
                "stop takes up to \(Self.maxStops) sequences of 1 to \(Self.maxStopLength) characters.")
        }
    }

    private static func decimal(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

extension GenerationOptions {
    /// Options stored as `json` (none for NULL or anything unreadable, which only Parley writes).
    public init(json: String?) {
        self =
            json.flatMap { try? JSONDecoder().decode(GenerationOptions.self, from: Data($0.utf8)) }
            ?? GenerationOptions()
    }

    /// The stored form: NULL when nothing is set, else a JSON object of the values set.
    public var storedJSON: String? {
        guard !isEmpty, let data = try? JSONEncoder().encode(self) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
