import AsyncHTTPClient
import Foundation
import NIOCore
import ParleyCore

/// `POST {base}/images/generations`: one picture per request, returned as base64 (`b64_json`), within the
/// first-token deadline (a picture arrives all at once).
extension OpenAICompatibleProvider: ImageProvider {
    /// The largest answer read: a 20 MB picture in base64, with room to spare.
    static let maxImageResponse = 64 * 1024 * 1024

    public func generateImage(prompt: String, model: String) async throws(ProviderError) -> GeneratedImage {
        let timeout = connection.timeouts.firstToken
        do {
            return try await UpstreamDeadline(limit: timeout).run { [connection, authorization] in
                var request = HTTPClientRequest(url: connection.baseURL + "/images/generations")
                request.method = .POST
                request.headers.add(name: "Content-Type", value: "application/json")
                for (header, value) in authorization { request.headers.add(name: header, value: value) }
                request.body = .bytes(try JSONEncoder().encode(ImageGenerationBody(model: model, prompt: prompt)))
                let body = try await connection.answer(to: request, upTo: Self.maxImageResponse)
                guard
                    let answer = try? JSONDecoder().decode(
                        ImageGenerationAnswer.self, from: Data(body.readableBytesView)),
                    let first = answer.data.first, let encoded = first.b64JSON, let bytes = Data(base64Encoded: encoded)
                else {
                    throw ProviderError.malformedResponse(detail: "the answer holds no base64 image (b64_json)")
                }
                return GeneratedImage(bytes: [UInt8](bytes), revisedPrompt: first.revisedPrompt)
            }
        } catch {
            throw connection.providerError(from: error, model: model)
        }
    }
}

/// The body of an image request: one picture, as base64.
private struct ImageGenerationBody: Encodable {
    var model: String
    var prompt: String
    var n = 1
}

/// The answer to an image request; only the fields Parley reads.
private struct ImageGenerationAnswer: Decodable {
    struct Image: Decodable {
        var b64JSON: String?
        var revisedPrompt: String?
        enum CodingKeys: String, CodingKey { case b64JSON = "b64_json", revisedPrompt = "revised_prompt" }
    }
    var data: [Image]
}
