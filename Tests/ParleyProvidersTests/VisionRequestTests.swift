import Foundation
import ParleyCore
import Testing

@testable import ParleyProviders

/// Images in each vendor's request body, as received by a real mock upstream: OpenAI's `image_url` data URLs,
/// Anthropic's base64 `image` blocks before the text, Gemini's `inlineData` parts before the text.
@Suite struct VisionRequestTests {
    typealias Harness = ProviderHarness
    static let png = TurnImage(contentType: "image/png", bytes: [0x89, 0x50, 0x4E, 0x47, 1, 2, 3])
    static let jpeg = TurnImage(contentType: "image/jpeg", bytes: [0xFF, 0xD8, 0xFF, 4, 5])

    /// A request whose last user turn carries two images.
    static var request: CompletionRequest {
        CompletionRequest(
            model: "mock-fast",
            turns: [
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
        let expected: NSDictionary = [
            "role": "user",
            "content": [
                ["type": "text", "text": "What is this?"],
                [
                    "type": "image_url",
                    "image_url": ["url": "data:image/png;base64,\(Data(Self.png.bytes).base64EncodedString())"],
                ],
                [
                    "type": "image_url",
                    "image_url": ["url": "data:image/jpeg;base64,\(Data(Self.jpeg.bytes).base64EncodedString())"],
                ],
            ],
        ]
        #expect(turns[2] == expected)
    }

    @Test func anthropicSendsBase64BlocksBeforeTheText() async throws {
        let body = try await Self.sentBody(.anthropic)
        let turns = try #require(body["messages"] as? [NSDictionary])
        #expect(turns[0] == ["role": "user", "content": "text only"])
        let expected: NSDictionary = [
            "role": "user",
            "content": [
                [
                    "type": "image",
                    "source": [
                        "type": "base64", "media_type": "image/png", "data": Data(Self.png.bytes).base64EncodedString(),
                    ],
                ],
                [
                    "type": "image",
                    "source": [
                        "type": "base64", "media_type": "image/jpeg",
                        "data": Data(Self.jpeg.bytes).base64EncodedString(),
                    ],
                ],
                ["type": "text", "text": "What is this?"],
            ],
        ]
        #expect(turns[2] == expected)
    }

    @Test func geminiSendsInlineDataBeforeTheText() async throws {
        let body = try await Self.sentBody(.gemini)
        let contents = try #require(body["contents"] as? [NSDictionary])
        #expect(contents[0] == ["role": "user", "parts": [["text": "text only"]]])
        let expected: NSDictionary = [
            "role": "user",
            "parts": [
                ["inlineData": ["mimeType": "image/png", "data": Data(Self.png.bytes).base64EncodedString()]],
                ["inlineData": ["mimeType": "image/jpeg", "data": Data(Self.jpeg.bytes).base64EncodedString()]],
                ["text": "What is this?"],
            ],
        ]
        #expect(contents[2] == expected)
    }

    /// The parts of a vendor's request that carry images, as (media type, base64) pairs, for a request of `image`.
    static func sentImages(_ kind: ProviderKind, _ image: TurnImage) async throws -> [(type: String, data: String)] {
        var body: NSDictionary = [:]
        try await withMock { mock in
            let turn = ChatTurn(role: .user, content: "What is this?", images: [image])
            let request = CompletionRequest(model: "mock-fast", turns: [turn])
            _ = await Harness.collect(Harness.provider(kind, mock: mock), request)
            body = try await Harness.lastRequest(mock)
        }
        switch kind {
        case .gemini:
            let parts = try #require((body["contents"] as? [NSDictionary])?.last?["parts"] as? [NSDictionary])
            return parts.compactMap { $0["inlineData"] as? NSDictionary }.compactMap { data in
                (data["mimeType"] as? String).flatMap { type in (data["data"] as? String).map { (type, $0) } }
            }
        case .anthropic:
            let parts = try #require((body["messages"] as? [NSDictionary])?.last?["content"] as? [NSDictionary])
            return parts.compactMap { $0["source"] as? NSDictionary }.compactMap { source in
                (source["media_type"] as? String).flatMap { type in (source["data"] as? String).map { (type, $0) } }
            }
        case .openai:
            let parts = try #require((body["messages"] as? [NSDictionary])?.last?["content"] as? [NSDictionary])
            return parts.compactMap { ($0["image_url"] as? NSDictionary)?["url"] as? String }.map { url in
                let header = url.prefix { $0 != "," }
                return (String(header.dropFirst(5).prefix { $0 != ";" }), String(url.dropFirst(header.count + 1)))
            }
        }
    }

    /// A fixture image of Tests/Fixtures/images.
    static func fixture(_ name: String, type: String) throws -> TurnImage {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let file = root.appendingPathComponent("Fixtures/images/\(name)")
        return TurnImage(contentType: type, bytes: [UInt8](try Data(contentsOf: file)))
    }

    @Test func eachVendorGetsImagesWithinItsOwnLimits() async throws {
        let wide = try Self.fixture("wide.png", type: "image/png")
        for (kind, edge) in [(ProviderKind.openai, 2048), (.anthropic, 1568), (.gemini, 2500)] {
            let sent = try await Self.sentImages(kind, wide)
            let first = try #require(sent.first)
            let bytes = try #require(Data(base64Encoded: first.data))
            let facts = try ImageInspector.inspect([UInt8](bytes))
            #expect(sent.first?.type == "image/png", "\(kind)")
            #expect(facts.format == .png && facts.width == edge, "\(kind)")
        }
        #expect(try await Self.sentImages(.gemini, wide).first?.data == Data(wide.bytes).base64EncodedString())
    }

    @Test func aGIFGoesAsIsToAnthropicAndAsAPNGToGeminiAndOpenAI() async throws {
        let gif = try Self.fixture("gradient.gif", type: "image/gif")
        #expect(try await Self.sentImages(.anthropic, gif).map(\.type) == ["image/gif"])
        for kind in [ProviderKind.gemini, .openai] {
            let sent = try #require(try await Self.sentImages(kind, gif).first)
            #expect(sent.type == "image/png", "\(kind)")
            let bytes = try #require(Data(base64Encoded: sent.data))
            #expect(try ImageInspector.inspect([UInt8](bytes)).format == .png)
        }
    }
}
