/// A completion asked through the OpenAI-compatible endpoint: the model by Parley's name, the caller's whole
/// context (never trimmed), and the sampling and limits to pass on.
public struct APICompletionRequest: Sendable, Equatable {
    public var model: String
    public var turns: [ChatTurn]
    public var maxTokens: Int?
    public var stop: [String]
    public var temperature: Double?
    public var topP: Double?

    /// Creates a request.
    public init(
        model: String, turns: [ChatTurn], maxTokens: Int? = nil, stop: [String] = [], temperature: Double? = nil,
        topP: Double? = nil
    ) {
        self.model = model
        self.turns = turns
        self.maxTokens = maxTokens
        self.stop = stop
        self.temperature = temperature
        self.topP = topP
    }
}
