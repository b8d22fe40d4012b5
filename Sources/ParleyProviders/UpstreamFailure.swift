import Foundation
import NIOHTTP1
import ParleyCore

/// An error a provider reported, as an HTTP status or inside its stream: the status, the vendor's error code
/// (OpenAI `code` or `type`, Anthropic `type`, Gemini `status`), its message, and any `Retry-After`.
/// `providerError` maps it to a `ProviderError` in one place for every wire format.
struct UpstreamFailure: Error, Equatable {
    var status: Int
    var code: String
    var message: String
    var retryAfterSeconds: Double?
    /// The `Location` of a redirect (3xx) answer.
    var location: String?

    /// Creates a failure from its parts.
    init(status: Int, code: String, message: String, retryAfterSeconds: Double? = nil, location: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
        self.location = location
    }

    /// Reads an error body in any of the three vendors' shapes (OpenAI and Anthropic `{"error":{…}}`,
    /// Gemini the same or wrapped in an array); a body of another shape becomes the message.
    init(status: Int, body: String, headers: HTTPHeaders = [:]) {
        let data = Data(body.utf8)
        let envelope =
            (try? JSONDecoder().decode(ErrorEnvelope.self, from: data))
            ?? (try? JSONDecoder().decode([ErrorEnvelope].self, from: data))?.first
        let error = envelope?.error
        self.init(
            status: status, code: error?.code ?? error?.status ?? error?.type ?? "",
            message: error?.message ?? String(body.prefix(200)),
            retryAfterSeconds: Self.retryAfter(headers) ?? error?.retryDelaySeconds,
            location: headers.first(name: "location"))
    }

    /// The provider error this failure means. `provider` names the provider in messages, `hasKey` tells a missing
    /// key from a rejected one, and `model` is the model the request asked for.
    func providerError(provider: String, hasKey: Bool, model: String) -> ProviderError {
        let keyError: ProviderError = hasKey ? .rejectedKey(provider: provider) : .missingKey(provider: provider)
        switch status {
        case 300...399:
            return .redirected(status: status, location: location ?? "")
        case 401, 403:
            return keyError
        case 400 where message.localizedCaseInsensitiveContains("API key"):
            // Gemini answers a bad key with 400 INVALID_ARGUMENT "API key not valid".
            return keyError
        case 404 where code == "model_not_found" || message.localizedCaseInsensitiveContains("model"):
            return .modelNotFound(model: model)
        case 400 where isContextTooLong, 413 where isContextTooLong:
            return .contextTooLong
        case 400 where Self.refusalCodes.contains(code):
            return .refused(detail: message)
        case 429 where code == "insufficient_quota":
            return .rejected(status: status, detail: message)
        case 429:
            return .rateLimited(retryAfterSeconds: retryAfterSeconds)
        case 500...599:
            // Includes Anthropic's 529 `overloaded_error`.
            return .overloaded(status: status)
        default:
            return .rejected(status: status, detail: message)
        }
    }

    /// Whether the code or message says the prompt is longer than the model's window.
    private var isContextTooLong: Bool {
        Self.contextCodes.contains(code)
            || Self.contextPhrases.contains { message.localizedCaseInsensitiveContains($0) }
    }

    /// Error codes meaning the prompt is longer than the model's window.
    private static let contextCodes: Set<String> = ["context_length_exceeded", "request_too_large"]
    /// Phrases of the vendors' "too long" messages: OpenAI and vLLM, Anthropic, Gemini.
    private static let contextPhrases = [
        "context length", "prompt is too long", "exceeds the maximum number of tokens",
    ]
    /// Error codes meaning the provider refused the content.
    private static let refusalCodes: Set<String> = ["content_filter", "content_policy_violation"]

    /// The `Retry-After` header in seconds, when given as a number.
    static func retryAfter(_ headers: HTTPHeaders) -> Double? {
        headers.first(name: "retry-after").flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }.flatMap {
            $0.isFinite ? $0 : nil
        }
    }
}

/// The error body shared, with small differences, by the three vendors.
private struct ErrorEnvelope: Decodable {
    struct Detail: Decodable {
        var message: String?
        var type: String?
        var status: String?
        var code: String?
        var retryDelaySeconds: Double?

        enum CodingKeys: String, CodingKey { case message, type, status, code, details }

        /// One entry of Gemini's `details`; a `RetryInfo` carries `retryDelay` such as "37s".
        struct Entry: Decodable { var retryDelay: String? }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            message = try? container.decode(String.self, forKey: .message)
            type = try? container.decode(String.self, forKey: .type)
            status = try? container.decode(String.self, forKey: .status)
            // OpenAI's `code` is a string; Gemini's is the HTTP status as a number, which says nothing new.
            code = try? container.decode(String.self, forKey: .code)
            let delay = (try? container.decode([Entry].self, forKey: .details))?.lazy.compactMap(\.retryDelay).first
            retryDelaySeconds = delay.flatMap { Double($0.hasSuffix("s") ? String($0.dropLast()) : $0) }
        }
    }
    var error: Detail
}
