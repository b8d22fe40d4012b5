import Foundation
import Hummingbird

/// Reads request bodies by their content type: URL-encoded forms (or no content type, as a script's empty POST) with
/// Hummingbird's `URLEncodedFormDecoder`, JSON with the API's one policy (`APIEncoding`). Anything else is a 415; a body past the context's limit a 413; a body that does
/// not read as the type asked for a 400 that names the problem.
struct ParleyRequestDecoder: RequestDecoder {
    func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        var request = request
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        if contentType.isEmpty || contentType.hasPrefix("application/x-www-form-urlencoded") {
            let body = try await request.collectBody(within: context.maxUploadSize)
            return try Self.form(T.self, from: String(buffer: body))
        }
        if contentType.hasPrefix("application/json") {
            return try Self.json(T.self, from: try await request.collectBody(within: context.maxUploadSize))
        }
        throw AppError(
            .unsupportedMediaType, code: "unsupported_media_type",
            message: "Send the body as application/json or application/x-www-form-urlencoded.")
    }

    /// Decodes a JSON body with the API's policy, or throws 400 naming the problem.
    static func json<T: Decodable>(_ type: T.Type, from body: ByteBuffer) throws(AppError) -> T {
        do {
            return try APIEncoding.decoder.decode(T.self, from: Data(body.readableBytesView))
        } catch {
            throw AppError.malformed("The JSON body could not be read: \(problem(error)).")
        }
    }

    /// Decodes URL-encoded fields (a form body, or a query string), or throws 400 naming the problem.
    static func form<T: Decodable>(_ type: T.Type, from encoded: String) throws(AppError) -> T {
        do {
            return try URLEncodedFormDecoder().decode(T.self, from: encoded)
        } catch {
            throw AppError.malformed("The form could not be read: \(problem(error)).")
        }
    }

    /// What was wrong, in words that name the field but never echo the body.
    private static func problem(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "the field “\(key.stringValue)” is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "the field “\(context.codingPath.map(\.stringValue).joined(separator: "."))” has the wrong type"
        case let error as URLEncodedFormError where error.code == .duplicateKeys: "a field is repeated"
        default: "it is malformed"
        }
    }
}

/// A form's on/off field: on when sent as `1` (a checked box, or a hidden field's value), off for anything else.
struct FormFlag: Decodable, Sendable {
    let isOn: Bool

    init(from decoder: any Decoder) throws {
        isOn = try decoder.singleValueContainer().decode(String.self) == "1"
    }
}

extension Optional where Wrapped == FormFlag {
    /// Whether the field was sent and on.
    var isOn: Bool { self?.isOn ?? false }
}
