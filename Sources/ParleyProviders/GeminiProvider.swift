import Foundation
import ParleyCore
import ParleyImaging
import ParleyJSON

/// Google's Gemini API, streaming (`POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse`).
public struct GeminiProvider: ChatProvider {
    /// Where the API is; its base URL has no version (https://generativelanguage.googleapis.com).
    public let connection: ProviderConnection

    /// Creates a provider.
    public init(connection: ProviderConnection) {
        self.connection = connection
    }

    /// Gemini's image input: PNG, JPEG and WebP (no GIF) within a request of 20 MB; the model sees at most 3,072 pixels
    /// a side, and each image is kept to 5 MB so that several fit in one request.
    public static let imageLimits = ImageLimits(
        formats: [.png, .jpeg, .webp], maxEdge: 3072, maxBytes: 5 * 1024 * 1024)

    public func streamCompletion(
        _ request: CompletionRequest, onSent: @escaping @Sendable () -> Void,
        onChunk: @escaping @Sendable (CompletionChunk) -> Duration
    ) async throws(ProviderError) {
        try await fittedRequest(for: request).stream(GeminiStreamDecoder(), onSent: onSent, onChunk: onChunk)
    }

    /// The HTTP request for a completion with its images fitted to the vendor's limits. Not inlined into
    /// `streamCompletion`, whose frame is held while the reply streams.
    @inline(never)
    func fittedRequest(for request: CompletionRequest) async -> UpstreamRequest {
        guard request.hasImages else { return upstreamRequest(for: request) }
        return upstreamRequest(for: await connection.images.fitted(request, to: Self.imageLimits))
    }

    /// The HTTP request for a completion: the key in `x-goog-api-key`, system turns in `systemInstruction`,
    /// the others in `contents` with the roles `user` and `model`.
    func upstreamRequest(for request: CompletionRequest) -> UpstreamRequest {
        let system = request.turns.filter { $0.role == .system }.map { turn in
            JSONText { $0.field("text", turn.content) }
        }
        let body = JSONText { body in
            body.field("contents", objectsFrom: request.turns.lazy.filter { $0.role != .system }, Self.writeContent)
            if !system.isEmpty {
                body.field("systemInstruction", object: JSONText { $0.field("parts", objects: system) })
            }
            let (tools, callsForbidden) = request.declaredTools
            if !tools.isEmpty { Self.writeTools(&body, tools) }
            if callsForbidden {
                body.field(
                    "toolConfig",
                    object: JSONText { config in
                        config.field("functionCallingConfig", object: JSONText { $0.field("mode", "NONE") })
                    })
            }
            if request.maxTokens != nil || !request.stop.isEmpty || request.effectiveThinkingBudget != nil
                || request.temperature != nil || request.topP != nil
            {
                body.field(
                    "generationConfig",
                    object: JSONText { config in
                        if let maxTokens = request.maxTokens { config.field("maxOutputTokens", maxTokens) }
                        if !request.stop.isEmpty { config.field("stopSequences", strings: request.stop) }
                        if let temperature = request.temperature { config.field("temperature", temperature) }
                        if let topP = request.topP { config.field("topP", topP) }
                        if let budget = request.effectiveThinkingBudget {
                            config.field(
                                "thinkingConfig",
                                object: JSONText { thinking in
                                    thinking.field("includeThoughts", true)
                                    thinking.field("thinkingBudget", budget)
                                })
                        }
                    })
            }
        }
        let model = request.model.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? request.model
        return UpstreamRequest(
            connection: connection,
            url: connection.baseURL + "/v1beta/models/\(model):streamGenerateContent?alt=sse",
            headers: connection.apiKey.map { [("x-goog-api-key", $0)] } ?? [],
            body: body.resultBytes, model: request.model)
    }

    /// Writes a turn as content: the role `user` or `model`, its images as `inlineData` parts in base64, then its text;
    /// or the parts of the calls it asked for or of the results it carries back.
    private static func writeContent(_ content: inout JSONText, _ turn: ChatTurn) {
        content.field("role", turn.role == .assistant ? "model" : "user")
        if !turn.toolCalls.isEmpty { return content.field("parts", objects: functionCallParts(turn)) }
        if !turn.toolResults.isEmpty { return content.field("parts", objects: functionResponseParts(turn)) }
        let images = turn.images.map { image in
            JSONText { part in
                part.field(
                    "inlineData",
                    object: JSONText {
                        $0.field("mimeType", image.contentType); $0.field("data", image.base64)
                    })
            }
        }
        content.field("parts", objects: images + [JSONText { $0.field("text", turn.content) }])
    }
}

/// Reads a `streamGenerateContent` stream: the parts of the first candidate (text, reasoning for a `thought` part, or a
/// whole tool call for a `functionCall` part, given an id of Parley's when Gemini sends none), `usageMetadata` (whose `thoughtsTokenCount` is not in `candidatesTokenCount`, and is added to the completion's),
/// the finish reason, a blocked prompt, and errors reported inside the stream.
struct GeminiStreamDecoder: StreamDecoder {
    /// Finish reasons meaning Gemini withheld the reply.
    static let refusalReasons: Set<String> = [
        "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY",
    ]

    /// Finish reasons meaning the model wrote a call that cannot be made.
    static let malformedCallReasons: Set<String> = ["MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL"]

    private let decoder = JSONDecoder()
    private var finishReason: String?

    mutating func decode(_ message: SSEMessage, into chunks: inout [CompletionChunk]) throws {
        guard let response = try? decoder.decode(GenerateContentResponse.self, from: Data(message.data.utf8)) else {
            throw ProviderError.malformedResponse(detail: "undecodable response")
        }
        if let error = response.error {
            throw UpstreamFailure(status: error.code ?? 500, body: message.data)
        }
        if let reason = response.promptFeedback?.blockReason {
            throw ProviderError.refused(detail: "the prompt was blocked (\(reason))")
        }
        let candidate = response.candidates?.first
        for part in candidate?.content?.parts ?? [] {
            if let call = part.functionCall {
                chunks.append(.toolCall(call.toolCall(signature: part.thoughtSignature)))
                continue
            }
            guard let text = part.text, !text.isEmpty else { continue }
            chunks.append(part.thought == true ? .reasoning(text) : .text(text))
        }
        if candidate?.finishReason == "MAX_TOKENS", finishReason != "MAX_TOKENS" { chunks.append(.cutAtLimit) }
        finishReason = candidate?.finishReason ?? finishReason
        // Early chunks may carry only the prompt's count; the reply's comes with (or after) the finish reason.
        if let usage = response.usageMetadata, usage.candidatesTokenCount != nil || finishReason != nil {
            chunks.append(
                .usage(
                    promptTokens: usage.promptTokenCount ?? 0,
                    completionTokens: (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0),
                    cachedPromptTokens: usage.cachedContentTokenCount ?? 0,
                    reasoningTokens: usage.thoughtsTokenCount ?? 0))
        }
    }

    var hasEnded: Bool { finishReason != nil }

    func finish() throws(ProviderError) {
        guard let finishReason else { throw .unreachable(detail: "the stream ended before a finish reason") }
        if Self.refusalReasons.contains(finishReason) {
            throw .refused(detail: "the reply was blocked (\(finishReason))")
        }
        if Self.malformedCallReasons.contains(finishReason) {
            throw .malformedResponse(detail: "the model wrote a tool call that cannot be made (\(finishReason))")
        }
    }
}

/// One streamed `GenerateContentResponse`; only the fields Parley reads.
private struct GenerateContentResponse: Decodable {
    struct Candidate: Decodable {
        struct Content: Decodable {
            struct Part: Decodable {
                var text: String?
                var thought: Bool?
                var functionCall: FunctionCall?
                /// The opaque signature of the reasoning behind the part, to be sent back with it.
                var thoughtSignature: String?
            }
            /// A call the model asks for, whole.
            struct FunctionCall: Decodable {
                var id: String?
                var name: String
                var args: JSONValue?

                /// The call with its part's `signature`, and an id of Parley's when Gemini sent none (unique, as results
                /// are told apart by it).
                func toolCall(signature: String?) -> ToolCall {
                    ToolCall(
                        id: id ?? "call_" + String(UInt64.random(in: 0...UInt64.max), radix: 36), name: name,
                        arguments: args?.text ?? "{}", signature: signature)
                }
            }
            var parts: [Part]?
        }
        var content: Content?
        var finishReason: String?
    }
    struct UsageMetadata: Decodable {
        var promptTokenCount: Int?
        var candidatesTokenCount: Int?
        var thoughtsTokenCount: Int?
        var cachedContentTokenCount: Int?
    }
    struct PromptFeedback: Decodable { var blockReason: String? }
    struct ErrorStatus: Decodable { var code: Int? }
    var candidates: [Candidate]?
    var usageMetadata: UsageMetadata?
    var promptFeedback: PromptFeedback?
    var error: ErrorStatus?
}
