import Foundation
import ParleyCore
import Testing

@testable import ParleyProviders

/// The Anthropic Messages wire format: the request Parley sends, the events it reads, and Anthropic's errors.
@Suite struct AnthropicProviderTests {
    typealias Harness = ProviderHarness

    /// Decodes `events` (name and JSON data) in order, returning the chunks and the end check's error.
    static func decode(_ events: [(String, String)]) throws -> (chunks: [CompletionChunk], finish: ProviderError?) {
        var decoder = AnthropicStreamDecoder()
        var chunks: [CompletionChunk] = []
        for (name, data) in events { try decoder.decode(SSEMessage(event: name, data: data), into: &chunks) }
        do throws(ProviderError) { try decoder.finish() } catch { return (chunks, error) }
        return (chunks, nil)
    }

    @Test func requestCarriesTheKeyVersionAndURL() {
        let connection = ProviderConnection(
            name: "Anthropic", baseURL: "https://api.anthropic.com/", apiKey: "sk-ant-1", client: .shared)
        let request = AnthropicProvider(connection: connection).upstreamRequest(
            for: Harness.request(model: "claude-sonnet-4-20250514"))
        #expect(request.url == "https://api.anthropic.com/v1/messages")
        #expect(request.headers.map { "\($0.0): \($0.1)" } == ["anthropic-version: 2023-06-01", "x-api-key: sk-ant-1"])
        #expect(request.model == "claude-sonnet-4-20250514")
        let keyless = AnthropicProvider(
            connection: ProviderConnection(name: "Anthropic", baseURL: "http://proxy", apiKey: "", client: .shared))
        #expect(keyless.upstreamRequest(for: Harness.request(model: "m")).headers.map(\.0) == ["anthropic-version"])
    }

    @Test func bodyPutsTheSystemPromptAtTheTopLevel() async throws {
        try await withMock { mock in
            _ = await Harness.collect(Harness.provider(.anthropic, mock: mock), Harness.request(model: "mock-fast"))
            let expected: NSDictionary = [
                "model": "mock-fast", "max_tokens": 8192, "system": "Be brief.", "stream": true,
                "messages": [
                    ["role": "user", "content": "earlier question"],
                    ["role": "assistant", "content": "earlier answer"],
                    ["role": "user", "content": Harness.question],
                ],
            ]
            let body = try await Harness.lastRequest(mock)
            #expect(body == expected)
        }
    }

    @Test func bodyWithoutSystemPromptHasNoSystemKey() async throws {
        try await withMock { mock in
            _ = await Harness.collect(
                Harness.provider(.anthropic, mock: mock), Harness.request(model: "mock-fast", system: nil))
            let body = try await Harness.lastRequest(mock)
            #expect(body["system"] == nil)
            #expect((body["messages"] as? [Any])?.count == 3)
        }
    }

    @Test func usageCountsCachedPromptTokensAndTheFinalOutput() throws {
        let (chunks, finish) = try Self.decode([
            (
                "message_start",
                #"{"type":"message_start","message":{"id":"m","usage":{"input_tokens":10,"cache_creation_input_tokens":5,"cache_read_input_tokens":100,"output_tokens":1}}}"#
            ),
            (
                "content_block_start",
                #"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#
            ),
            ("ping", #"{"type":"ping"}"#),
            (
                "content_block_delta",
                #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#
            ),
            (
                "content_block_delta",
                #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" there"}}"#
            ),
            ("content_block_stop", #"{"type":"content_block_stop","index":0}"#),
            (
                "message_delta",
                #"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7}}"#
            ),
            ("message_stop", #"{"type":"message_stop"}"#),
        ])
        #expect(
            chunks == [
                .text("Hi"), .text(" there"), .usage(promptTokens: 115, completionTokens: 7, cachedPromptTokens: 100),
            ])
        #expect(finish == nil)
    }

    @Test func refusalStopReasonIsARefusalAfterTheUsage() throws {
        let (chunks, finish) = try Self.decode([
            ("message_start", #"{"type":"message_start","message":{"usage":{"input_tokens":3}}}"#),
            (
                "message_delta",
                #"{"type":"message_delta","delta":{"stop_reason":"refusal"},"usage":{"output_tokens":0}}"#
            ),
            ("message_stop", #"{"type":"message_stop"}"#),
        ])
        #expect(chunks == [.usage(promptTokens: 3, completionTokens: 0)])
        #expect(finish == .refused(detail: "the model declined to answer (stop reason “refusal”)"))
        #expect(finish?.reason.code == "content_refused")
    }

    @Test func streamEndingBeforeMessageStopIsUnreachable() throws {
        let (_, finish) = try Self.decode([
            ("content_block_delta", #"{"type":"content_block_delta","delta":{"text":"Hi"}}"#)
        ])
        #expect(finish == .unreachable(detail: "the stream ended before message_stop"))
    }

    @Test func overloadedErrorEventMidStreamIsOverloaded() {
        var decoder = AnthropicStreamDecoder()
        var chunks: [CompletionChunk] = []
        #expect(throws: UpstreamFailure(status: 529, code: "overloaded_error", message: "Overloaded")) {
            try decoder.decode(
                SSEMessage(
                    event: "error",
                    data: #"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#),
                into: &chunks)
        }
        #expect(
            UpstreamFailure(status: 529, code: "overloaded_error", message: "Overloaded")
                .providerError(provider: "Anthropic", hasKey: true, model: "m") == .overloaded(status: 529))
    }

    @Test(
        "Anthropic's error answers map to clear reasons",
        arguments: [
            (
                529, #"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
                ProviderError.overloaded(status: 529)
            ),
            (
                400,
                #"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#,
                .contextTooLong
            ),
            (
                413,
                #"{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}"#,
                .contextTooLong
            ),
            (
                401, #"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
                .rejectedKey(provider: "Anthropic")
            ),
            (
                403,
                #"{"type":"error","error":{"type":"permission_error","message":"Your API key does not have permission"}}"#,
                .rejectedKey(provider: "Anthropic")
            ),
            (
                404, #"{"type":"error","error":{"type":"not_found_error","message":"model: claude-nope"}}"#,
                .modelNotFound(model: "claude-nope")
            ),
            (
                429,
                #"{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}}"#,
                .rateLimited(retryAfterSeconds: nil)
            ),
            (
                400,
                #"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}}"#,
                .rejected(status: 400, detail: "max_tokens: Field required")
            ),
        ])
    func errorAnswersMapToReasons(status: Int, body: String, expected: ProviderError) {
        #expect(
            UpstreamFailure(status: status, body: body).providerError(
                provider: "Anthropic", hasKey: true, model: "claude-nope") == expected)
    }
}
