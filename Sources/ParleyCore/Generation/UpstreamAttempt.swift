/// One way a reply asks for its answer: the model (by id, to keep the frames that hold this small), its provider, the
/// request, and how the reply has fared so far. `next(after:…)` decides, without I/O, what follows a failure.
struct UpstreamAttempt {
    var modelID: String
    var provider: any ChatProvider
    var request: CompletionRequest
    var retries = 0
    /// Whether this asks the fallback of the reply's model (which is not itself fallen back from).
    var isFallback = false
    /// Whether the context was already cut to about half after the provider refused it as too long.
    var isHalved = false
    /// Whether the context is the caller's to the last turn, never cut (an API completion's).
    var keepsWholeContext = false

    /// What follows a failed attempt.
    enum Next: Equatable {
        /// Ask again after the wait: the same model, or the same with about half the context.
        case retry(after: Duration)
        /// Ask the model's fallback at once.
        case fallBack
        /// The reply ends with this error.
        case fail(ProviderError)
    }

    /// The model's fallback and its provider, when it has one.
    typealias Fallback = (model: ModelInfo, provider: any ChatProvider)

    /// Decides what follows `error` and becomes the next attempt: a context the provider found too long (an empty
    /// reply is how llama.cpp's server says so) is halved and asked again once; before any text, an outage is retried
    /// per `policy`, then (or at once, for a connection that could not be opened) handed to the fallback; anything
    /// else, or anything after text was shown, ends the reply.
    mutating func next(after error: ProviderError, hasText: Bool, policy: RetryPolicy, fallback: Fallback?) -> Next {
        if error == .contextTooLong || error == .emptyReply, !hasText, !isHalved, !keepsWholeContext,
            let halved = ContextWindow.halved(request.turns)
        {
            request.turns = halved
            isHalved = true
            return .retry(after: .zero)
        }
        guard error.allowsFallback, !hasText else { return .fail(error) }
        if error.isRetryable, retries < policy.maxRetries {
            var retryAfter: Double?
            if case .rateLimited(let seconds) = error { retryAfter = seconds }
            defer { retries += 1 }
            return .retry(after: policy.delay(attempt: retries, retryAfterSeconds: retryAfter))
        }
        guard !isFallback, let fallback else { return .fail(error) }
        self = UpstreamAttempt(
            modelID: fallback.model.id, provider: fallback.provider,
            request: request.answered(by: fallback.model), isFallback: true,
            keepsWholeContext: keepsWholeContext)
        return .fallBack
    }
}
