/// Everything that can go wrong upstream, mapped once at the provider boundary.
public enum ProviderError: Error, Equatable, Sendable {
    case missingKey(provider: String)
    case rejectedKey(provider: String)
    case modelNotFound(model: String)
    case rateLimited(retryAfterSeconds: Double?)
    case overloaded(status: Int)
    case unreachable(detail: String)
    /// No connection could be opened (refused, no route, no such host) within the connect timeout, during which the
    /// HTTP client kept trying: trying again would only add another timeout, so it is not retried.
    case connectFailed(detail: String)
    case timedOut
    case contextTooLong
    case refused(detail: String)
    case malformedResponse(detail: String)
    /// The provider accepted the request (2xx) and sent no event at all: not a dropped connection, so not retried.
    case emptyReply
    case rejected(status: Int, detail: String)
    /// The provider answered with a redirect, which Parley never follows (it would carry the key to another origin).
    case redirected(status: Int, location: String)
    case cancelled

    /// Whether retrying the same request later may succeed (only before the first token).
    public var isRetryable: Bool {
        switch self {
        case .rateLimited, .overloaded, .unreachable: true
        default: false
        }
    }

    /// Whether the model's fallback (another provider, usually) may answer instead: the provider is down or busy.
    public var allowsFallback: Bool {
        if case .connectFailed = self { return true }
        return isRetryable
    }

    /// The user-facing reason shown in the conversation.
    public var reason: FailureReason {
        switch self {
        case .missingKey(let provider):
            FailureReason(
                code: "no_provider_key",
                message: "No API key is configured for \(provider). An admin can set it in the server's environment.")
        case .rejectedKey(let provider):
            FailureReason(code: "provider_rejected_key", message: "\(provider) rejected the configured API key.")
        case .modelNotFound(let model):
            FailureReason(code: "model_not_found", message: "The provider does not know the model “\(model)”.")
        case .rateLimited:
            FailureReason(
                code: "rate_limited", message: "The provider is rate limiting requests. Please try again in a moment.")
        case .overloaded(let status):
            FailureReason(
                code: "provider_overloaded",
                message: "The provider is overloaded or failing (HTTP \(status)). Please try again later.")
        case .unreachable:
            FailureReason(
                code: "upstream_unreachable",
                message: "The model's server could not be reached or dropped the connection.")
        case .connectFailed:
            FailureReason(
                code: "upstream_unreachable",
                message: "The model's server could not be reached: no connection to it could be opened.")
        case .timedOut:
            FailureReason(code: "upstream_timeout", message: "The model's server stopped sending the reply.")
        case .contextTooLong:
            FailureReason(
                code: "context_too_long",
                message: "This conversation is longer than the model's context window allows, even after trimming.")
        case .refused(let detail):
            FailureReason(code: "content_refused", message: "The provider refused to answer: \(detail)")
        case .malformedResponse:
            FailureReason(
                code: "upstream_malformed", message: "The model's server sent a reply Parley could not understand.")
        case .emptyReply:
            FailureReason(
                code: "upstream_empty",
                message: "The model's server accepted the request but sent an empty reply. "
                    + "Some servers do this when the conversation is too long for the model: try a new conversation or another model."
            )
        case .rejected(let status, let detail):
            FailureReason(
                code: "provider_error", message: "The provider rejected the request (HTTP \(status)): \(detail)")
        case .redirected(let status, let location):
            FailureReason(
                code: "upstream_redirect",
                message: "The provider's server answered with a redirect (HTTP \(status)) to "
                    + "\(location.isEmpty ? "no location" : "“" + location.prefix(200) + "”"), which Parley does not follow. "
                    + "An admin can set the provider's base URL to the final address.")
        case .cancelled:
            FailureReason(code: "cancelled", message: "The reply was stopped.")
        }
    }
}
