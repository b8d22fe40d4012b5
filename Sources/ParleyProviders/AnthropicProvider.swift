import Foundation
import ParleyCore
import ParleyImaging
import ParleyJSON

/// Anthropic's Messages API, streaming (`POST {base}/v1/messages`).
public struct AnthropicProvider: ChatProvider {
    /// The API version sent in `anthropic-version`.
    static let apiVersion = "2023-06-01"
    /// The longest reply asked for (`max_tokens` is required); every current Claude model allows at least this many.
    static let maxTokens = 8192

    /// Where the API is; its base URL has no version (https://api.anthropic.com).
    public let connection: ProviderConnection

    /// Creates a provider.
    public init(connection: ProviderConnection) {
        self.connection = connection
    }

    /// Anthropic's image input: JPEG, PNG, GIF and WebP of at most 5 MB in base64; images over 1,568 pixels a side are
    /// scaled down by Anthropic at the cost of a slower first token, so Parley sends them at that size.
    public static let imageLimits = ImageLimits(
        formats: [.jpeg, .png, .gif, .webp], maxEdge: 1568,
        maxBytes: 5 * 1024 * 1024 * 3 / 4)

    public func streamCompletion(
        _ request: CompletionRequest, onSent: @escaping @Sendable () -> Void,
        onChunk: @escaping @Sendable (CompletionChunk) -> Duration
    ) async throws(ProviderError) {
        try await fittedRequest(for: request).stream(AnthropicStreamDecoder(), onSent: onSent, onChunk: onChunk)
    }

    /// The HTTP request for a completion with its images fitted to the vendor's limits. Not inlined into
    /// `streamCompletion`, whose frame is held while the reply streams.
    @inline(never)
    func fittedRequest(for request: CompletionRequest) async -> UpstreamRequest {
        guard request.hasImages else { return upstreamRequest(for: request) }
        return upstreamRequest(for: await connection.images.fitted(request, to: Self.imageLimits))
    }

    /// The HTTP request for a completion: system turns go in the top-level `system`, the others in `messages`.
    func upstreamRequest(for request: CompletionRequest) -> UpstreamRequest {
        let system = request.turns.filter { $0.role == .system }.map(\.content).joined(separator: "\n\n")
        let thinkingBudget = Self.thinkingBudget(of: request)
        let body = JSONText { body in
            body.field("model", request.model)
            // Thinking tokens count within `max_tokens`: the answer keeps its own allowance on top of them.
            body.field("max_tokens", (request.maxTokens ?? Self.maxTokens) + (thinkingBudget ?? 0))
            if let budget = thinkingBudget {
                body.field(
                    "thinking",
                    object: JSONText { thinking in
                        thinking.field("type", "enabled")
                        thinking.field("budget_tokens", budget)
                    })
            }
            if !request.stop.isEmpty { body.field("stop_sequences", strings: request.stop) }
            if let temperature = request.temperature { body.field("temperature", temperature) }
            if let topP = request.topP { body.field("top_p", topP) }
            if !system.isEmpty { body.field("system", system) }
            body.field("messages", objectsFrom: request.turns.lazy.filter { $0.role != .system }, Self.writeMessage)
            let (tools, callsForbidden) = request.declaredTools
            if !tools.isEmpty { Self.writeTools(&body, tools) }
            if callsForbidden { body.field("tool_choice", object: JSONText { $0.field("type", "none") }) }
            body.field("stream", true)
        }
        var headers = [("anthropic-version", Self.apiVersion)]
        if let key = connection.apiKey { headers.append(("x-api-key", key)) }
        return UpstreamRequest(
            connection: connection, url: connection.baseURL + "/v1/messages", headers: headers,
            body: body.resultBytes, model: request.model)
    }

    /// Writes a turn as a message: its content is a string, or with images an array of base64 `image` blocks followed
    /// by the text, or the blocks of the calls it asked for or of the results it carries back.
    private static func writeMessage(_ message: inout JSONText, _ turn: ChatTurn) {
        message.field("role", turn.role.rawValue)
        if !turn.toolCalls.isEmpty { return message.field("content", objects: toolUseBlocks(turn)) }
        if !turn.toolResults.isEmpty { return message.field("content", objects: toolResultBlocks(turn)) }
        guard !turn.images.isEmpty else { return message.field("content", turn.content) }
        let images = turn.images.map { image in
            JSONText { block in
                block.field("type", "image")
                block.field(
                    "source",
                    object: JSONText { source in
                        source.field("type", "base64")
                        source.field("media_type", image.contentType)
                        source.field("data", image.base64)
                    })
            }
        }
        message.field(
            "content",
            objects: images + [
                JSONText {
                    $0.field("type", "text"); $0.field("text", turn.content)
                }
            ])
    }
}

/// Reads a Messages stream: text from `content_block_delta` (`text_delta`), reasoning from its `thinking_delta` (the
/// thinking counts in `output_tokens`, with no count of its own), the prompt size from `message_start`, the reply size
/// and stop reason from `message_delta`, the end from `message_stop`, and `error` events. A `tool_use` block is a call:
/// its id and name in `content_block_start`, its input in `input_json_delta` pieces, handed on at its
/// `content_block_stop`. A `redacted_thinking` block,
/// encrypted, has no text to show and adds nothing; `signature_delta` is the thinking's signature, for a request that
/// sends it back, which Parley does not.
struct AnthropicStreamDecoder: StreamDecoder {
    private let decoder = JSONDecoder()
    private var promptTokens = 0
    private var cachedPromptTokens = 0
    private var stopReason: String?
    private var toolCalls = StreamedToolCalls()
    private(set) var hasEnded = false

    mutating func decode(_ message: SSEMessage, into chunks: inout [CompletionChunk]) throws {
        guard let event = try? decoder.decode(MessagesEvent.self, from: Data(message.data.utf8)) else {
            throw ProviderError.malformedResponse(detail: "undecodable event")
        }
        switch event.type {
        case "content_block_delta":
            if let text = event.delta?.text { chunks.append(.text(text)) }
            if let thinking = event.delta?.thinking, !thinking.isEmpty { chunks.append(.reasoning(thinking)) }
            if let input = event.delta?.partialJSON { toolCalls.add(index: event.index ?? 0, arguments: input) }
        case "content_block_start":
            guard let block = event.contentBlock, block.type == "tool_use" else { break }
            toolCalls.add(index: event.index ?? 0, id: block.id, name: block.name)
        case "content_block_stop":
            if let call = toolCalls.take(index: event.index ?? 0) { chunks.append(.toolCall(call)) }
        case "message_start":
            promptTokens = event.message?.usage?.promptTokens ?? 0
            cachedPromptTokens = event.message?.usage?.cacheReadInputTokens ?? 0
        case "message_delta":
            stopReason = event.delta?.stopReason ?? stopReason
            if event.delta?.stopReason == "max_tokens" { chunks.append(.cutAtLimit) }
            if let usage = event.usage {
                chunks.append(
                    .usage(
                        promptTokens: usage.promptTokens ?? promptTokens, completionTokens: usage.outputTokens ?? 0,
                        cachedPromptTokens: usage.cacheReadInputTokens ?? cachedPromptTokens))
            }
        case "message_stop":
            hasEnded = true
        case "error":
            throw UpstreamFailure(status: Self.status(ofErrorType: event.error?.type ?? ""), body: message.data)
        default:
            break  // ping, and events added later
        }
    }

    func finish() throws(ProviderError) {
        if stopReason == "refusal" { throw .refused(detail: "the model declined to answer (stop reason “refusal”)") }
        guard hasEnded else { throw .unreachable(detail: "the stream ended before message_stop") }
    }

    /// The HTTP status Anthropic gives each error type, for errors reported inside a stream.
    static func status(ofErrorType type: String) -> Int {
        switch type {
        case "invalid_request_error": 400
        case "authentication_error": 401
        case "permission_error": 403
        case "not_found_error": 404
        case "request_too_large": 413
        case "rate_limit_error": 429
        case "overloaded_error": 529
        default: 500
        }
    }
}

/// One streamed event; only the fields Parley reads.
private struct MessagesEvent: Decodable {
    struct Delta: Decodable {
        var text: String?
        var thinking: String?
        /// A piece of a `tool_use` block's input (`input_json_delta`).
        var partialJSON: String?
        var stopReason: String?
        enum CodingKeys: String, CodingKey {
            case text, thinking, partialJSON = "partial_json", stopReason = "stop_reason"
        }
    }
    /// The block a `content_block_start` opens; a `tool_use` block's id and name.
    struct ContentBlock: Decodable {
        var type: String?
        var id: String?
        var name: String?
    }
    struct Usage: Decodable {
        var inputTokens: Int?
        var cacheCreationInputTokens: Int?
        var cacheReadInputTokens: Int?
        var outputTokens: Int?
        enum CodingKeys: String, CodingKey {
            case inputTokens = "input_tokens", cacheCreationInputTokens = "cache_creation_input_tokens"
            case cacheReadInputTokens = "cache_read_input_tokens", outputTokens = "output_tokens"
        }
        /// Every prompt token, whether read from the cache, written to it, or neither.
        var promptTokens: Int? {
            inputTokens.map { $0 + (cacheCreationInputTokens ?? 0) + (cacheReadInputTokens ?? 0) }
        }
    }
    struct Message: Decodable { var usage: Usage? }
    struct ErrorDetail: Decodable { var type: String? }
    var type: String
    var index: Int?
    var delta: Delta?
    var contentBlock: ContentBlock?
    var usage: Usage?
    var message: Message?
    var error: ErrorDetail?
    enum CodingKeys: String, CodingKey {
        case type, index, delta, contentBlock = "content_block", usage, message, error
    }
}
