import Foundation
import Hummingbird

/// Answers `POST /v1/images/generations` with one small PNG in base64, as OpenAI's image models do; a model whose name
/// contains `error` gets a 500 instead.
struct ImageEndpoint: Sendable {
    let stats: MockStats

    /// The picture every request gets: a 64×48 gradient PNG.
    static let picture =
        "iVBORw0KGgoAAAANSUhEUgAAAEAAAAAwCAIAAAAuKetIAAAAUUlEQVR4nO3PAQnAQADEsBvsfU/6ZISHhhros33vdnNnV2tAa0BrQGtAa0BrQGtAa0BrQGtAa0BrQGtAa0BrQGtAa0BrQGtAa0BrQGtAa0D7AYdTAyVn8kkcAAAAAElFTkSuQmCC"

    /// Counts the request and answers it.
    func respond(to request: Request, context: BasicRequestContext) async -> Response {
        var request = request
        let buffer = try? await request.collectBody(upTo: 1024 * 1024)
        let body = buffer.flatMap {
            try? JSONSerialization.jsonObject(with: Data($0.readableBytesView)) as? [String: Any]
        }
        await stats.received(body: buffer.map { String(buffer: $0) })
        guard let body, let model = body["model"] as? String, let prompt = body["prompt"] as? String else {
            return MockUpstream.json(
                #"{"error":{"message":"model and prompt are required","type":"invalid_request_error"}}"#,
                status: .badRequest)
        }
        await stats.answered()
        if model.contains("error") {
            return MockUpstream.json(
                #"{"error":{"message":"the image model failed","type":"server_error"}}"#,
                status: .internalServerError)
        }
        let answer: [String: Any] = [
            "created": Int(Date().timeIntervalSince1970),
            "data": [["b64_json": Self.picture, "revised_prompt": "A gradient, as asked: \(prompt)"]],
        ]
        let data = (try? JSONSerialization.data(withJSONObject: answer)) ?? Data()
        return MockUpstream.json(String(decoding: data, as: UTF8.self))
    }
}
