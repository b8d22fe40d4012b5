/// Whoever an upstream stream answers (a conversation's reply, an API completion), as the retry loop needs it.
protocol UpstreamListener: Sendable {
    /// Whether text or reasoning has come: after it, a failure is no longer retried (it would show twice).
    var hasOutput: Bool { get }
    /// Names the stream in log lines.
    var logLabel: String { get }
    /// The provider handed the request to its HTTP client.
    func requestSent()
    /// An attempt failed, maybe before its request left.
    func attemptFailed()
    /// The model's fallback answers from now on.
    func fellBack(to model: ModelInfo)
    /// Takes one chunk, on the provider's network thread; answers how long further bytes may wait unread.
    func receive(_ chunk: CompletionChunk) -> Duration
}

/// How an upstream stream ended, with every retry and the fallback tried.
enum UpstreamEnd: Sendable {
    case completed
    case failed(ProviderError)
    case cancelled
}
