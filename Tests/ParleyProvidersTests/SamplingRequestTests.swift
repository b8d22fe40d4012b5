import Foundation
import ParleyCore
import Testing

@testable import ParleyProviders

/// A request's sampling (`temperature`, `top_p`) and reasoning effort reach each vendor in its own form, and a request
/// without them sends none: the request bodies the mock upstream receives.
@Suite struct SamplingRequestTests {
    typealias Harness = ProviderHarness

    /// A question with the given sampling.
    static func sampled(temperature: Double?, topP: Double?) -> CompletionRequest {
        var request = Harness.request(model: "mock-fast")
        request.temperature = temperature
        request.topP = topP
        return request
    }

    @Test(arguments: [ProviderKind.openai, .anthropic])
    func openAIAndAnthropicNameThemAlike(kind: ProviderKind) async throws {
        try await withMock { mock in
            _ = await Harness.collect(Harness.provider(kind, mock: mock), Self.sampled(temperature: 0.25, topP: 0.5))
            let body = try await Harness.lastRequest(mock)
            #expect(body["temperature"] as? Double == 0.25 && body["top_p"] as? Double == 0.5)
            _ = await Harness.collect(Harness.provider(kind, mock: mock), Self.sampled(temperature: nil, topP: nil))
            let plain = try await Harness.lastRequest(mock)
            #expect(plain["temperature"] == nil && plain["top_p"] == nil)
        }
    }

    @Test func geminiPutsThemInItsGenerationConfig() async throws {
        try await withMock { mock in
            _ = await Harness.collect(Harness.provider(.gemini, mock: mock), Self.sampled(temperature: 1.5, topP: 0.9))
            let config = try await Harness.lastRequest(mock)["generationConfig"] as? NSDictionary
            #expect(config == ["temperature": 1.5, "topP": 0.9])
        }
    }

    @Test func reasoningEffortIsOpenAIsFieldAndTheOthersThinkingBudget() async throws {
        try await withMock { mock in
            var request = Harness.request(model: "mock-think")
            request.reasoningEffort = .medium
            request.thinkingBudget = 2_000
            _ = await Harness.collect(Harness.provider(.openai, mock: mock), request)
            #expect(try await Harness.lastRequest(mock)["reasoning_effort"] as? String == "medium")
            _ = await Harness.collect(Harness.provider(.anthropic, mock: mock), request)
            let anthropic = try await Harness.lastRequest(mock)
            #expect(anthropic["thinking"] as? NSDictionary == ["type": "enabled", "budget_tokens": 4_096])
            _ = await Harness.collect(Harness.provider(.gemini, mock: mock), request)
            let config = try await Harness.lastRequest(mock)["generationConfig"] as? NSDictionary
            #expect((config?["thinkingConfig"] as? NSDictionary)?["thinkingBudget"] as? Int == 4_096)
        }
    }
}
