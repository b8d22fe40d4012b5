import ParleyCore
import Testing

@testable import MockUpstream
@testable import ParleyProviders

/// A model's reasoning read from each wire format: against the mock upstream's reasoning models, and from the forms
/// other servers use.
@Suite struct ReasoningStreamTests {
    typealias Harness = ProviderHarness

    /// The reasoning tokens `mock-think` streams.
    static let reasoningTokens = MockReply.reasoningChunks(model: "mock-think").count

    /// The reasoning and the answer text of `chunks`, each joined, and whether all the reasoning came first.
    static func parts(_ chunks: [CompletionChunk]) -> (reasoning: String, text: String, reasoningFirst: Bool) {
        var reasoning = ""
        var text = ""
        var reasoningFirst = true
        for chunk in chunks {
            switch chunk {
            case .reasoning(let more):
                reasoningFirst = reasoningFirst && text.isEmpty
                reasoning += more
            case .text(let more): text += more
            default: break
            }
        }
        return (reasoning, text, reasoningFirst)
    }

    @Test(
        "mock-think streams its reasoning, then its answer, in each vendor's form; usage counts the reasoning as output, and its own count where the vendor gives one",
        arguments: ProviderKind.allCases)
    func reasoningThenAnswer(kind: ProviderKind) async throws {
        try await withMock { mock in
            let (chunks, error) = await Harness.collect(
                Harness.provider(kind, mock: mock), Harness.request(model: "mock-think"))
            #expect(error == nil)
            let reasoning = MockReply.reasoningChunks(model: "mock-think").map(CompletionChunk.reasoning)
            // Anthropic counts thinking in `output_tokens` without a count of its own.
            let reasoningTokens = kind == .anthropic ? 0 : Self.reasoningTokens
            #expect(
                chunks == reasoning + Harness.texts("mock-think") + [
                    .usage(
                        promptTokens: Harness.promptTokens,
                        completionTokens: MockUpstreamTests.tokens + Self.reasoningTokens,
                        reasoningTokens: reasoningTokens)
                ])
            #expect(MockReply.text(model: "mock-think", tokens: 3) == MockReply.text(model: "mock-fast", tokens: 3))
        }
    }

    @Test("mock-think-tag's leading <think>…</think>, its tags cut across chunks, is reasoning; the rest is the answer")
    func thinkTagIsReasoning() async throws {
        try await withMock { mock in
            let (chunks, error) = await Harness.collect(
                Harness.provider(.openai, mock: mock), Harness.request(model: "mock-think-tag"))
            #expect(error == nil)
            let (reasoning, text, reasoningFirst) = Self.parts(chunks)
            #expect(reasoning == MockReply.reasoning(model: "mock-think-tag"))
            #expect(text == MockReply.text(model: "mock-fast", tokens: MockUpstreamTests.tokens))
            #expect(reasoningFirst)
            // The server counts the whole content as completion tokens, and says nothing of reasoning.
            let content = MockReply.chunks(model: "mock-think-tag", tokens: MockUpstreamTests.tokens)
            #expect(content.first == "<thi" && content.joined().hasPrefix("<think>"))
            #expect(
                chunks.last
                    == .usage(
                        promptTokens: Harness.promptTokens, completionTokens: content.count, reasoningTokens: 0))
        }
    }

    @Test(
        "OpenAI-compatible reasoning is read from reasoning_content or reasoning (once when a server sends both), before the content"
    )
    func openAIReasoningFields() throws {
        var decoder = OpenAIStreamDecoder()
        var chunks: [CompletionChunk] = []
        for data in [
            #"{"choices":[{"delta":{"role":"assistant","content":null,"reasoning_content":"deep"}}]}"#,
            #"{"choices":[{"delta":{"reasoning":"router"}}]}"#,
            #"{"choices":[{"delta":{"reasoning_content":"both","reasoning":"both"}}]}"#,
            #"{"choices":[{"delta":{"reasoning":"","content":"Hi"}}]}"#,
            #"{"choices":[{"delta":{"reasoning_content":null,"content":"!"},"finish_reason":"stop"}]}"#,
            #"{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":30,"completion_tokens_details":{"reasoning_tokens":28,"accepted_prediction_tokens":0}}}"#,
            "[DONE]",
        ] {
            try decoder.decode(SSEMessage(data: data), into: &chunks)
        }
        #expect(
            chunks == [
                .reasoning("deep"), .reasoning("router"), .reasoning("both"), .text("Hi"), .text("!"),
                .usage(promptTokens: 3, completionTokens: 30, reasoningTokens: 28),
            ])
    }

    @Test("Anthropic's thinking deltas are reasoning; a redacted block and the signature add nothing")
    func anthropicThinking() throws {
        var decoder = AnthropicStreamDecoder()
        var chunks: [CompletionChunk] = []
        for data in [
            #"{"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":1}}}"#,
            #"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}"#,
            #"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me see."}}"#,
            #"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln"}}"#,
            #"{"type":"content_block_stop","index":0}"#,
            #"{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"ZW5j"}}"#,
            #"{"type":"content_block_stop","index":1}"#,
            #"{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}"#,
            #"{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"Hello"}}"#,
            #"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}"#,
            #"{"type":"message_stop"}"#,
        ] {
            try decoder.decode(SSEMessage(data: data), into: &chunks)
        }
        #expect(
            chunks == [.reasoning("Let me see."), .text("Hello"), .usage(promptTokens: 5, completionTokens: 9)])
    }
}
