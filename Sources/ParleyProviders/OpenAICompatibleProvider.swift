import AsyncHTTPClient
import Foundation
import NIOCore
import ParleyCore
import ParleyImaging
import ParleyJSON

/// Any server speaking OpenAI's streaming Chat Completions (OpenAI, Ollama, vLLM, llama.cpp, OpenRouter).
public struct OpenAICompatibleProvider: ChatProvider {
    /// Where the server is; its base URL includes the version, as OpenAI's SDK takes it (https://api.openai.com/v1).
    public let connection: ProviderConnection

    /// Creates a provider.
    public init(connection: ProviderConnection) {
        self.connection = connection
    }

    /// OpenAI's image input: PNG, JPEG and WebP (GIFs go as their first frame), up to 20 MB in base64; the model sees
    /// at most 2,048 pixels a side, so nothing larger is sent.
    public static let imageLimits = ImageLimits(
        formats: [.png, .jpeg, .webp], maxEdge: 2048,
        maxBytes: 15 * 1024 * 1024)

    public func streamCompletion(
        _ request: CompletionRequest, onSent: @escaping @Sendable () -> Void,
        onChunk: @escaping @Sendable (CompletionChunk) -> Duration
    ) async throws(ProviderError) {
        try await fittedRequest(for: request).stream(OpenAIStreamDecoder(), onSent: onSent, onChunk: onChunk)
    }

    /// The HTTP request for a completion with its images fitted to the vendor's limits. Not inlined into
    /// `streamCompletion`, whose frame is held while the reply streams.
    @inline(never)
    func fittedRequest(for request: CompletionRequest) async -> UpstreamRequest {
        guard request.hasImages else { return upstreamRequest(for: request) }
        return upstreamRequest(for: await connection.images.fitted(request, to: Self.imageLimits))
    }

    /// The HTTP request for a completion: `POST {base}/chat/completions` with a bearer key. Not inlined into
    /// `streamCompletion`, whose frame is held while the reply streams.
    @inline(never)
    func upstreamRequest(for request: CompletionRequest) -> UpstreamRequest {
        let body = JSONText { body in
            body.field("model", request.model)
            if request.turns.contains(where: { !$0.toolResults.isEmpty }) {
                body.field("messages", objectsFrom: Message.of(request.turns), Self.writeMessage)
            } else {
                body.field("messages", objectsFrom: request.turns, Self.writeMessage)
            }
            let (tools, callsForbidden) = request.declaredTools
            if !tools.isEmpty { Self.writeTools(&body, tools) }
            if callsForbidden { body.field("tool_choice", "none") }
            if let maxTokens = request.maxTokens { body.field("max_tokens", maxTokens) }
            if !request.stop.isEmpty { body.field("stop", strings: request.stop) }
            if let temperature = request.temperature { body.field("temperature", temperature) }
            if let topP = request.topP { body.field("top_p", topP) }
            if let effort = request.reasoningEffort { body.field("reasoning_effort", effort.rawValue) }
            body.field("stream", true)
            body.field("stream_options", object: JSONText { $0.field("include_usage", true) })
        }
        return UpstreamRequest(
            connection: connection, url: connection.baseURL + "/chat/completions", headers: authorization,
            body: body.resultBytes, model: request.model)
    }

    /// Writes a turn as a message: its content is a string, or with images an array of the text and `image_url` parts
    /// (data URLs); a turn that asked for calls carries them.
    static func writeMessage(_ message: inout JSONText, _ turn: ChatTurn) {
        message.field("role", turn.role.rawValue)
        if !turn.toolCalls.isEmpty { return writeToolCalls(&message, turn) }
        guard !turn.images.isEmpty else { return message.field("content", turn.content) }
        let text = JSONText {
            $0.field("type", "text"); $0.field("text", turn.content)
        }
        message.field(
            "content",
            objects: [text]
                + turn.images.map { image in
                    JSONText { part in
                        part.field("type", "image_url")
                        part.field(
                            "image_url",
                            object: JSONText { $0.field("url", "data:\(image.contentType);base64,\(image.base64)") })
                    }
                })
    }

    /// The models the server lists at `GET {baseURL}/models`, each with its context window where the list gives it
    /// (`withServerWindows` asks the server's own routes for the others); the whole exchange must end within `timeout`.
    public func listModels(timeout: Duration = .seconds(10)) async throws(ProviderError) -> [ListedModel] {
        do {
            return try await UpstreamDeadline(limit: timeout).run { [self] in
                let body = try await connection.answer(to: get(connection.baseURL + "/models"), upTo: 4 * 1024 * 1024)
                let entries = try JSONDecoder().decode(ModelList.self, from: Data(body.readableBytesView)).data
                return entries.map { entry in
                    ListedModel(id: entry.id, contextWindow: entry.window, trainedWindow: entry.meta?.nCtxTrain)
                }
            }
        } catch {
            throw connection.providerError(from: error, model: "")
        }
    }

    /// A `GET` of `url` with the provider's key.
    func get(_ url: String) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        for (header, value) in authorization { request.headers.add(name: header, value: value) }
        return request
    }

    /// The `Authorization` header, when a key is configured.
    var authorization: [(String, String)] {
        connection.apiKey.map { [("Authorization", "Bearer \($0)")] } ?? []
    }
}

/// Reads a Chat Completions stream: `choices[0].delta`'s reasoning (`reasoning_content` or `reasoning`) and
/// `content` (split by `ThinkTagSplitter` when it opens with `<think>`), its `tool_calls` (gathered by index, each
/// call's arguments in pieces, and handed on at the finish reason or `[DONE]`), `finish_reason`, the final `usage` (its
/// reasoning tokens, already counted in the completion's), then `[DONE]`; the reply is complete once a finish reason or
/// `[DONE]` came.
struct OpenAIStreamDecoder: StreamDecoder {
    private(set) var hasEnded = false
    private var thinkTags = ThinkTagSplitter()
    private var toolCalls = StreamedToolCalls()

    mutating func decode(_ message: SSEMessage, into chunks: inout [CompletionChunk]) throws {
        if message.data == "[DONE]" {
            thinkTags.flush(into: &chunks)
            takeToolCalls(into: &chunks)
            hasEnded = true
            return
        }
        guard let chunk = try? ChatCompletionChunk(json: message.data) else {
            throw ProviderError.malformedResponse(detail: "undecodable chunk")
        }
        if chunk.hasError {
            throw UpstreamFailure(status: 502, body: message.data)
        }
        if let reasoning = chunk.choices?.first?.reasoning, !reasoning.isEmpty { chunks.append(.reasoning(reasoning)) }
        if let text = chunk.choices?.first?.content { thinkTags.feed(text, into: &chunks) }
        if let pieces = chunk.choices?.first?.toolCalls, !pieces.isEmpty { gather(pieces) }
        switch chunk.choices?.first?.finishReason {
        case "content_filter": throw ProviderError.refused(detail: "the content filter stopped the reply")
        case "length":
            thinkTags.flush(into: &chunks)
            takeToolCalls(into: &chunks)
            chunks.append(.cutAtLimit)
            hasEnded = true
        case .some:
            thinkTags.flush(into: &chunks)
            takeToolCalls(into: &chunks)
            hasEnded = true
        case nil: break
        }
        if let usage = chunk.usage {
            chunks.append(
                .usage(
                    promptTokens: usage.promptTokens ?? 0, completionTokens: usage.completionTokens ?? 0,
                    cachedPromptTokens: usage.cachedTokens ?? 0, reasoningTokens: usage.reasoningTokens ?? 0))
        }
    }

    func finish() throws(ProviderError) {
        guard hasEnded else { throw .unreachable(detail: "the stream ended before a finish reason or [DONE]") }
    }

    /// Adds tool call pieces to their calls; a piece without an index (some servers') starts a call when it has an id,
    /// and otherwise continues the last one.
    private mutating func gather(_ pieces: [ChatCompletionChunk.ToolCallPiece]) {
        for piece in pieces {
            let next = (toolCalls.lastIndex ?? -1) + 1
            let index = piece.index ?? (piece.id == nil ? toolCalls.lastIndex ?? next : next)
            toolCalls.add(index: index, id: piece.id, name: piece.name, arguments: piece.arguments)
        }
    }

    /// Hands on the calls gathered so far.
    private mutating func takeToolCalls(into chunks: inout [CompletionChunk]) {
        guard !toolCalls.isEmpty else { return }
        chunks.append(contentsOf: toolCalls.takeAll().map(CompletionChunk.toolCall))
    }
}

/// A model an OpenAI-compatible server lists, and its context window when the server says it.
public struct ListedModel: Sendable, Equatable {
    public var id: String
    public var contextWindow: Int?
    /// The window the model was trained with, where the list says it (llama.cpp's `meta.n_ctx_train`).
    var trainedWindow: Int? = nil

    /// `window` when it is a believable context window: a window under 1,024 tokens is taken for a mistake.
    static func plausible(_ window: Int?) -> Int? {
        window.flatMap { $0 >= 1_024 ? $0 : nil }
    }
}

/// The answer of `GET /models`: ids, and the context window as vLLM (`max_model_len`) and OpenRouter
/// (`context_length`) give it, and the window llama.cpp's server says the model was trained with (`meta.n_ctx_train`).
private struct ModelList: Decodable {
    struct Entry: Decodable {
        struct Meta: Decodable {
            var nCtxTrain: Int?

            enum CodingKeys: String, CodingKey {
                case nCtxTrain = "n_ctx_train"
            }
        }

        var id: String
        var maxModelLen: Int?
        var contextLength: Int?
        var meta: Meta?

        enum CodingKeys: String, CodingKey {
            case id, meta
            case maxModelLen = "max_model_len"
            case contextLength = "context_length"
        }

        /// The window the listing gives for the model's requests, if any.
        var window: Int? { ListedModel.plausible(maxModelLen ?? contextLength) }
    }
    var data: [Entry]
}
