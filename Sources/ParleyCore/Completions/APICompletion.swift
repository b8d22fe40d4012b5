/// A finished API completion: the model that answered (its fallback, when that answered), the text and reasoning
/// streamed, the usage as charged, and how it ended.
public struct APICompletion: Sendable {
    /// How a completion ended.
    public enum End: Sendable, Equatable {
        /// The model ended the answer.
        case complete
        /// The answer stopped at its output limit.
        case cutAtLimit
        /// The provider failed, every retry and the fallback tried; text may have come before.
        case failed(ProviderError)
        /// The caller went away (or the server stopped it): the upstream request was closed.
        case cancelled
    }

    public var model: ModelInfo
    public var text: String
    public var reasoning: String
    public var usage: Usage
    public var end: End
}
