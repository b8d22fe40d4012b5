import ParleyCore

/// Generation options as a form's text fields, each empty when not set: `temperature`, `top_p`, `max_tokens`, `stop`
/// (one sequence a line) and `reasoning_effort` (`low`, `medium`, `high`).
struct GenerationOptionsFields: Decodable, Sendable {
    var temperature: String?
    var topP: String?
    var maxTokens: String?
    var stop: String?
    var reasoningEffort: String?

    enum CodingKeys: String, CodingKey {
        case temperature, topP = "top_p", maxTokens = "max_tokens", stop, reasoningEffort = "reasoning_effort"
    }

    /// The options the fields give, or a 422 naming a field that is not a number (or not an effort) when set. Ranges
    /// are the model's, checked where the options are applied.
    func options() throws(AppError) -> GenerationOptions {
        var options = GenerationOptions()
        options.temperature = try Self.number(temperature, "temperature")
        options.topP = try Self.number(topP, "top_p")
        if let text = Self.set(maxTokens) {
            guard let tokens = Int(text) else { throw Self.invalid("max_tokens must be a whole number.") }
            options.maxTokens = tokens
        }
        options.stop = (stop ?? "").split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
        if let text = Self.set(reasoningEffort) {
            guard let effort = ReasoningEffort(rawValue: text) else {
                throw Self.invalid("reasoning_effort must be low, medium or high.")
            }
            options.reasoningEffort = effort
        }
        return options
    }

    /// The fields' values for a page showing `options` of a conversation on `model`.
    static func values(_ options: GenerationOptions, model: ModelInfo?) -> [String: Any] {
        let defaults = model?.defaultOptions ?? GenerationOptions()
        return [
            "temperature": options.temperature.map { "\($0)" } ?? "",
            "top_p": options.topP.map { "\($0)" } ?? "",
            "max_tokens": options.maxTokens.map(String.init) ?? "",
            "stop": options.stop.joined(separator: "\n"),
            "max_temperature": model?.maxTemperature ?? 2,
            "output_limit": model?.maxOutputTokens.map { [["max": $0]] } ?? [],
            "default_temperature": defaults.temperature.map { "\($0)" } ?? "default",
            "default_top_p": defaults.topP.map { "\($0)" } ?? "default",
            "default_max_tokens": defaults.maxTokens.map(String.init) ?? "default",
            "efforts": ReasoningEffort.allCases.map { effort in
                ["value": effort.rawValue, "selected": options.reasoningEffort == effort]
            },
        ]
    }

    private static func set(_ text: String?) -> String? {
        let trimmed = (text ?? "").trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : trimmed
    }

    private static func number(_ text: String?, _ name: String) throws(AppError) -> Double? {
        guard let text = set(text) else { return nil }
        guard let value = Double(text), value.isFinite else { throw invalid("\(name) must be a number.") }
        return value
    }

    private static func invalid(_ problem: String) -> AppError {
        AppError(.unprocessableContent, code: "invalid_setting", message: problem)
    }
}
