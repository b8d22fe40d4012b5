import Foundation
import ParleyCore
import Testing

@testable import ParleyProviders

/// The Gemini `streamGenerateContent` wire format: the request Parley sends, the responses it reads, and Gemini's
/// errors.
@Suite struct GeminiProviderTests {
    typealias Harness = ProviderHarness

    /// Decodes `responses` (JSON data) in order, returning the chunks and the end check's error.
    static func decode(_ responses: [String]) throws -> (chunks: [CompletionChunk], finish: ProviderError?) {
        var decoder = GeminiStreamDecoder()
        var chunks: [CompletionChunk] = []
        for data in responses { try decoder.decode(SSEMessage(data: data), into: &chunks) }
        do throws(ProviderError) { try decoder.finish() } catch { return (chunks, error) }
        return (chunks, nil)
    }

    @Test func requestCarriesTheKeyInAHeaderNotTheURL() {
        let connection = ProviderConnection(
            name: "Gemini", baseURL: "https://generativelanguage.googleapis.com", apiKey: "AIza-1",
            client: .shared)
        let request = GeminiProvider(connection: connection).upstreamRequest(
            for: Harness.request(model: "gemini-2.5-flash"))
        #expect(
            request.url
                == "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
        )
        #expect(request.headers.map { "\($0.0): \($0.1)" } == ["x-goog-api-key: AIza-1"])
        #expect(!request.url.contains("AIza"))
    }

    @Test func bodyUsesSystemInstructionAndTheModelRole() async throws {
        try await withMock { mock in
            _ = await Harness.collect(Harness.provider(.gemini, mock: mock), Harness.request(model: "mock-fast"))
            let expected: NSDictionary = [
                "systemInstruction": ["parts": [["text": "Be brief."]]],
                "contents": [
                    ["role": "user", "parts": [["text": "earlier question"]]],
                    ["role": "model", "parts": [["text": "earlier answer"]]],
                    ["role": "user", "parts": [["text": Harness.question]]],
                ],
            ]
            let body = try await Harness.lastRequest(mock)
            #expect(body == expected)
        }
    }

    @Test func bodyWithoutSystemPromptHasNoSystemInstruction() async throws {
        try await withMock { mock in
            _ = await Harness.collect(
                Harness.provider(.gemini, mock: mock), Harness.request(model: "mock-fast", system: nil))
            let body = try await Harness.lastRequest(mock)
            #expect(body.allKeys as? [String] == ["contents"])
        }
    }

    @Test func thoughtsAreReasoningAndCountAsOutput() throws {
        let (chunks, finish) = try Self.decode([
            #"{"candidates":[{"content":{"parts":[{"text":"thinking...","thought":true}],"role":"model"}}],"usageMetadata":{"promptTokenCount":8}}"#,
            #"{"candidates":[{"content":{"parts":[{"text":"Hello"},{"text":" world"}],"role":"model"}}],"usageMetadata":{"promptTokenCount":8}}"#,
            #"{"candidates":[{"content":{"parts":[{"text":"!"}],"role":"model"},"finishReason":"STOP"}],"#
                + #""usageMetadata":{"promptTokenCount":8,"candidatesTokenCount":3,"thoughtsTokenCount":20,"totalTokenCount":31,"#
                + #""cachedContentTokenCount":6}}"#,
        ])
        #expect(
            chunks == [
                .reasoning("thinking..."), .text("Hello"), .text(" world"), .text("!"),
                .usage(promptTokens: 8, completionTokens: 23, cachedPromptTokens: 6, reasoningTokens: 20),
            ])
        #expect(finish == nil)
    }

    @Test("a safety finish reason is a refusal", arguments: ["SAFETY", "RECITATION", "PROHIBITED_CONTENT"])
    func safetyFinishIsARefusal(reason: String) throws {
        let (chunks, finish) = try Self.decode([
            #"{"candidates":[{"content":{"parts":[{"text":"Well"}]}}]}"#,
            #"{"candidates":[{"finishReason":"\#(reason)"}],"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":1}}"#,
        ])
        #expect(chunks == [.text("Well"), .usage(promptTokens: 4, completionTokens: 1)])
        #expect(finish == .refused(detail: "the reply was blocked (\(reason))"))
    }

    @Test func blockedPromptIsARefusal() {
        var decoder = GeminiStreamDecoder()
        var chunks: [CompletionChunk] = []
        #expect(throws: ProviderError.refused(detail: "the prompt was blocked (SAFETY)")) {
            try decoder.decode(
                SSEMessage(
                    data: #"{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":4}}"#),
                into: &chunks)
        }
    }

    @Test func streamEndingWithoutFinishReasonIsUnreachable() throws {
        let (_, finish) = try Self.decode([#"{"candidates":[{"content":{"parts":[{"text":"Hi"}]}}]}"#])
        #expect(finish == .unreachable(detail: "the stream ended before a finish reason"))
    }

    @Test func errorInsideTheStreamUsesItsCode() {
        var decoder = GeminiStreamDecoder()
        var chunks: [CompletionChunk] = []
        #expect(throws: UpstreamFailure(status: 503, code: "UNAVAILABLE", message: "The model is overloaded.")) {
            try decoder.decode(
                SSEMessage(
                    data: #"{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}"#),
                into: &chunks)
        }
    }

    @Test(
        "Gemini's error answers map to clear reasons",
        arguments: [
            (
                400,
                #"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}"#,
                ProviderError.rejectedKey(provider: "Gemini")
            ),
            (
                400,
                #"{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}"#,
                .contextTooLong
            ),
            (
                403,
                #"{"error":{"code":403,"message":"Method doesn't allow unregistered callers","status":"PERMISSION_DENIED"}}"#,
                .rejectedKey(provider: "Gemini")
            ),
            (
                404,
                #"{"error":{"code":404,"message":"models/gemini-nope is not found for API version v1beta","status":"NOT_FOUND"}}"#,
                .modelNotFound(model: "gemini-nope")
            ),
            (
                429,
                #"[{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED","#
                    + #""details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37s"}]}}]"#,
                .rateLimited(retryAfterSeconds: 37)
            ),
            (
                503, #"{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}"#,
                .overloaded(status: 503)
            ),
            (
                400,
                #"{"error":{"code":400,"message":"User location is not supported","status":"FAILED_PRECONDITION"}}"#,
                .rejected(status: 400, detail: "User location is not supported")
            ),
        ])
    func errorAnswersMapToReasons(status: Int, body: String, expected: ProviderError) {
        #expect(
            UpstreamFailure(status: status, body: body).providerError(
                provider: "Gemini", hasKey: true, model: "gemini-nope") == expected)
    }

    @Test func missingKeyIsToldApartFromARejectedOne() {
        let failure = UpstreamFailure(
            status: 403, body: #"{"error":{"code":403,"message":"unregistered callers","status":"PERMISSION_DENIED"}}"#)
        #expect(failure.providerError(provider: "Gemini", hasKey: false, model: "m") == .missingKey(provider: "Gemini"))
        #expect(failure.providerError(provider: "Gemini", hasKey: false, model: "m").reason.code == "no_provider_key")
    }
}
