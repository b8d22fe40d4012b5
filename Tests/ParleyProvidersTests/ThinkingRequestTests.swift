import Foundation
import ParleyCore
import Testing

@testable import ParleyProviders

/// A model's thinking budget asks Anthropic and Gemini to think and show it (they do neither unless asked): the
/// request bodies the mock upstream receives, the configuration key, and no change for a model without a budget.
@Suite struct ThinkingRequestTests {
    typealias Harness = ProviderHarness

    /// The question sent with a thinking budget.
    static func thinking(_ budget: Int?) -> CompletionRequest {
        var request = Harness.request(model: "mock-think")
        request.thinkingBudget = budget
        return request
    }

    @Test func anthropicIsAskedForExtendedThinkingOnTopOfTheAnswersAllowance() async throws {
        try await withMock { mock in
            _ = await Harness.collect(Harness.provider(.anthropic, mock: mock), Self.thinking(4_000))
            let body = try await Harness.lastRequest(mock)
            #expect(body["thinking"] as? NSDictionary == ["type": "enabled", "budget_tokens": 4_000])
            #expect(body["max_tokens"] as? Int == 8_192 + 4_000)
            _ = await Harness.collect(Harness.provider(.anthropic, mock: mock), Self.thinking(nil))
            let plain = try await Harness.lastRequest(mock)
            #expect(plain["thinking"] == nil)
            #expect(plain["max_tokens"] as? Int == 8_192)
        }
    }

    @Test func geminiIsAskedToIncludeItsThoughts() async throws {
        try await withMock { mock in
            _ = await Harness.collect(Harness.provider(.gemini, mock: mock), Self.thinking(2_048))
            let body = try await Harness.lastRequest(mock)
            let config = body["generationConfig"] as? NSDictionary
            #expect(config?["thinkingConfig"] as? NSDictionary == ["includeThoughts": true, "thinkingBudget": 2_048])
            _ = await Harness.collect(Harness.provider(.gemini, mock: mock), Self.thinking(nil))
            #expect(try await Harness.lastRequest(mock)["generationConfig"] == nil)
        }
    }

    @Test func theConfigurationSetsAModelsBudgetAndRefusesABadOne() throws {
        let file = try ProviderConfig.decode(
            Data(#"{"models": [{"id": "claude", "provider": "anthropic", "thinking_budget": 4096}]}"#.utf8), file: "c")
        #expect(file.models.first?.thinkingBudget == 4096)
        for bad in ["0", "-5", "1.5", "\"lots\""] {
            #expect(throws: ProviderConfigError.self) {
                try ProviderConfig.decode(
                    Data(#"{"models": [{"id": "claude", "provider": "anthropic", "thinking_budget": \#(bad)}]}"#.utf8),
                    file: "c")
            }
        }
        let request = CompletionRequest(
            model: ModelInfo(id: "claude", upstreamID: "claude-x", providerID: "anthropic"), turns: [])
        #expect(request.model == "claude-x" && request.thinkingBudget == nil)
    }
}
