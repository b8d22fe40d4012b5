import HTTPTypes
import ParleyCore
import ParleyJSON

/// Errors as OpenAI's clients read them: `{"error":{"message","type","param","code"}}`, the type following the status.
enum OpenAIError {
    /// The error body for `error`.
    static func body(_ error: AppError) -> [UInt8] {
        JSONText { body in
            body.field(
                "error",
                object: JSONText { object in
                    object.field("message", error.message)
                    object.field("type", type(of: error.status))
                    object.field(null: "param")
                    object.field("code", error.code)
                })
        }.resultBytes
    }

    /// OpenAI's error type for a status.
    static func type(of status: HTTPResponse.Status) -> String {
        switch status.code {
        case 401: "authentication_error"
        case 402: "insufficient_quota"
        case 403: "permission_error"
        case 429: "rate_limit_error"
        case 500...: "api_error"
        default: "invalid_request_error"
        }
    }
}

extension AppError {
    /// The HTTP form of an upstream failure that ended a completion before any text: a rate limit is a 429 with the
    /// provider's wait, a stall a 504, a context too long a 400, a provider without a key a 503, the rest a 502.
    init(upstream error: ProviderError) {
        let reason = error.reason
        switch error {
        case .rateLimited(let seconds):
            // A hostile `Retry-After` (infinite, not a number, a year) must neither crash nor be passed on.
            let wait = seconds.filter(\.isFinite).map { Int(min(max($0.rounded(.up), 1), 3_600)) } ?? 5
            self = .tooManyRequests(code: reason.code, message: reason.message, wait: wait)
        case .timedOut: self.init(.gatewayTimeout, code: reason.code, message: reason.message)
        case .contextTooLong: self.init(.badRequest, code: "context_length_exceeded", message: reason.message)
        case .missingKey: self.init(.serviceUnavailable, code: reason.code, message: reason.message)
        default: self.init(.badGateway, code: reason.code, message: reason.message)
        }
    }
}
