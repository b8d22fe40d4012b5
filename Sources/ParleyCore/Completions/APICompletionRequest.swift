/// A completion asked through the OpenAI-compatible endpoint: the model by Parley's name, the caller's whole
/// context (never trimmed), and the generation options to pass on (over the model's defaults).
public struct APICompletionRequest: Sendable, Equatable {
    public var model: String
    public var turns: [ChatTurn]
    public var options: GenerationOptions

    /// Creates a request.
    public init(model: String, turns: [ChatTurn], options: GenerationOptions = GenerationOptions()) {
        self.model = model
        self.turns = turns
        self.options = options
    }
}
