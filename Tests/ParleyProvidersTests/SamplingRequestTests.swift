import Foundation
import ParleyCore
import Testing

@testable import ParleyProviders

/// A request's sampling (`temperature`, `top_p`) reaches each vendor under its own name, and a request without it sends
/// none: the request bodies the mock upstream receives.
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
}
