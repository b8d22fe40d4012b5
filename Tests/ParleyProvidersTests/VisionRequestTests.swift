import Foundation
import ParleyCore
@testable import ParleyProviders
import Testing

/// Images in each vendor's request body, as received by a real mock upstream: OpenAI's `image_url` data URLs,
/// Anthropic's base64 `image` blocks before the text, Gemini's `inlineData` parts before the text.
@Suite struct VisionRequestTests {
    typealias Harness = ProviderHarness
    static let png = TurnImage(contentType: "image/png", bytes: [0x89, 0x50, 0x4E, 0x47, 1, 2, 3])
    static let jpeg = TurnImage(contentType: "image/jpeg", bytes: [0xFF, 0xD8, 0xFF, 4, 5])

    /// A request whose last user turn carries two images.
    static var request: CompletionRequest {
        CompletionRequest(model: "mock-fast", turns: [
            ChatTurn(role: .user, content: "text only"),
            ChatTurn(role: .assistant, content: "ok"),
            ChatTurn(role: .user, content: "What is this?", images: [png, jpeg]),
        ])
    }

    /// The body of the last request the mock received from a provider of `kind` sent `request`.
    static func sentBody(_ kind: ProviderKind) async throws -> NSDictionary {
        var body: NSDictionary = [:]
        try await withMock { mock in
            _ = await Harness.collect(Harness.provider(kind, mock: mock), request)
            body = try await Harness.lastRequest(mock)
        }
        return body
    }

    @Test func openAISendsDataURLsAfterTheText() async throws {
        let body = try await Self.sentBody(.openai)
        let turns = try #require(body["messages"] as? [NSDictionary])
        #expect(turns[0] == ["role": "user", "content": "text only"])
        let expected: NSDictionary = ["role": "user", "content": [
            ["type": "text", "text": "What is this?"],
            ["type": "image_url", "image_url": ["url": "data:image/png;base64,\(Data(Self.png.bytes).base64EncodedString())"]],
            ["type": "image_url", "image_url": ["url": "data:image/jpeg;base64,\(Data(Self.jpeg.bytes).base64EncodedString())"]],
        ]]
        #expect(turns[2] == expected)
    }

    @Test func anthropicSendsBase64BlocksBeforeTheText() async throws {
        let body = try await Self.sentBody(.anthropic)
        let turns = try #require(body["messages"] as? [NSDictionary])
        #expect(turns[0] == ["role": "user", "content": "text only"])
        let expected: NSDictionary = ["role": "user", "content": [
            ["type": "image", "source": ["type": "base64", "media_type": "image/png", "data": Data(Self.png.bytes).base64EncodedString()]],
            ["type": "image", "source": ["type": "base64", "media_type": "image/jpeg", "data": Data(Self.jpeg.bytes).base64EncodedString()]],
            ["type": "text", "text": "What is this?"],
        ]]
        #expect(turns[2] == expected)
    }

    @Test func geminiSendsInlineDataBeforeTheText() async throws {
        let body = try await Self.sentBody(.gemini)
        let contents = try #require(body["contents"] as? [NSDictionary])
        #expect(contents[0] == ["role": "user", "parts": [["text": "text only"]]])
        let expected: NSDictionary = ["role": "user", "parts": [
            ["inlineData": ["mimeType": "image/png", "data": Data(Self.png.bytes).base64EncodedString()]],
            ["inlineData": ["mimeType": "image/jpeg", "data": Data(Self.jpeg.bytes).base64EncodedString()]],
            ["text": "What is this?"],
        ]]
        #expect(contents[2] == expected)
    }
}
