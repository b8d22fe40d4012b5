import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ParleyCore

/// Any server speaking OpenAI's streaming Chat Completions (OpenAI, Ollama, vLLM, llama.cpp, OpenRouter).
public struct OpenAICompatibleProvider: ChatProvider {
    /// The name used in messages to users (for example "OpenAI").
    public let name: String
    /// The base URL including the version, as OpenAI's SDK takes it (for example https://api.openai.com/v1).
    public let baseURL: String
    let apiKey: String?
    let client: HTTPClient

    /// Creates a provider.
    public init(name: String, baseURL: String, apiKey: String?, client: HTTPClient) {
        self.name = name
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.apiKey = apiKey.flatMap { $0.isEmpty ? nil : $0 }
        self.client = client
    }

    public func streamCompletion(_ request: CompletionRequest,
                                 onChunk: @Sendable (CompletionChunk) async -> Void) async throws(ProviderError) {
        let body = ChatCompletionsBody(model: request.model,
                                       messages: request.turns.map { .init(role: $0.role.rawValue, content: $0.content) })
        let upstream = UpstreamRequest(client: client, url: baseURL + "/chat/completions", headers: authorization,
                                       body: (try? JSONEncoder().encode(body)) ?? Data())
        var finished = false
        let decoder = JSONDecoder()
        try await upstream.stream(mapStatus: mapStatus) { message in
            if message.data == "[DONE]" {
                finished = true
                return
            }
            guard let chunk = try? decoder.decode(ChatCompletionChunk.self, from: Data(message.data.utf8)) else {
                throw ProviderError.malformedResponse(detail: "undecodable chunk")
            }
            if let error = chunk.error {
                throw ProviderError.rejected(status: 502, detail: error.message ?? "the stream reported an error")
            }
            if let text = chunk.choices?.first?.delta?.content { await onChunk(.text(text)) }
            switch chunk.choices?.first?.finishReason {
            case "content_filter": throw ProviderError.refused(detail: "the content filter stopped the reply")
            case .some: finished = true
            case nil: break
            }
            if let usage = chunk.usage {
                await onChunk(.usage(promptTokens: usage.promptTokens ?? 0, completionTokens: usage.completionTokens ?? 0))
            }
        }
        guard finished else { throw ProviderError.unreachable(detail: "the stream ended before [DONE]") }
    }

    /// The model ids the server lists at `GET {baseURL}/models`.
    public func listModels() async throws(ProviderError) -> [String] {
        do {
            var request = HTTPClientRequest(url: baseURL + "/models")
            for (header, value) in authorization { request.headers.add(name: header, value: value) }
            let response = try await client.execute(request, timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 4 * 1024 * 1024)
            guard response.status == .ok else { throw mapStatus(Int(response.status.code), String(buffer: body), response.headers) }
            return try JSONDecoder().decode(ModelList.self, from: Data(body.readableBytesView)).data.map(\.id)
        } catch {
            throw UpstreamRequest.providerError(from: error)
        }
    }

    private var authorization: [(String, String)] {
        apiKey.map { [("Authorization", "Bearer \($0)")] } ?? []
    }

    /// Maps an OpenAI-style error status and body to a provider error.
    private func mapStatus(_ status: Int, _ body: String, _ headers: HTTPHeaders) -> ProviderError {
        let error = (try? JSONDecoder().decode(ErrorEnvelope.self, from: Data(body.utf8)))?.error
        let code = error?.code ?? error?.type ?? ""
        let detail = error?.message ?? String(body.prefix(200))
        switch status {
        case 401, 403:
            return apiKey == nil ? .missingKey(provider: name) : .rejectedKey(provider: name)
        case 404 where code == "model_not_found" || detail.localizedCaseInsensitiveContains("model"):
            return .modelNotFound(model: detail)
        case 400 where code == "context_length_exceeded" || detail.localizedCaseInsensitiveContains("context length"):
            return .contextTooLong
        case 400 where code == "content_filter" || code == "content_policy_violation":
            return .refused(detail: detail)
        case 429 where code == "insufficient_quota":
            return .rejected(status: status, detail: detail)
        case 429:
            return .rateLimited(retryAfterSeconds: UpstreamRequest.retryAfter(headers))
        case 500...599:
            return .overloaded(status: status)
        default:
            return .rejected(status: status, detail: detail)
        }
    }
}

/// The body of a streaming Chat Completions request.
private struct ChatCompletionsBody: Encodable {
    struct Turn: Encodable {
        var role: String
        var content: String
    }
    struct StreamOptions: Encodable {
        var includeUsage = true
        enum CodingKeys: String, CodingKey { case includeUsage = "include_usage" }
    }
    var model: String
    var messages: [Turn]
    var stream = true
    var streamOptions = StreamOptions()
    enum CodingKeys: String, CodingKey { case model, messages, stream, streamOptions = "stream_options" }
}

/// One streamed chunk; only the fields Parley reads.
private struct ChatCompletionChunk: Decodable {
    struct Choice: Decodable {
        struct Delta: Decodable { var content: String? }
        var delta: Delta?
        var finishReason: String?
        enum CodingKeys: String, CodingKey { case delta, finishReason = "finish_reason" }
    }
    struct TokenUsage: Decodable {
        var promptTokens: Int?
        var completionTokens: Int?
        enum CodingKeys: String, CodingKey { case promptTokens = "prompt_tokens", completionTokens = "completion_tokens" }
    }
    struct StreamError: Decodable {
        var message: String?
    }
    var choices: [Choice]?
    var usage: TokenUsage?
    var error: StreamError?
}

/// An OpenAI-style error body.
private struct ErrorEnvelope: Decodable {
    struct Detail: Decodable {
        var message: String?
        var type: String?
        var code: String?
    }
    var error: Detail
}

/// The answer of `GET /models`.
private struct ModelList: Decodable {
    struct Entry: Decodable { var id: String }
    var data: [Entry]
}
