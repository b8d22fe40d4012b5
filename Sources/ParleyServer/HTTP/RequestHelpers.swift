import Foundation
import Hummingbird
import NIOCore
import ParleyCore

extension AppRequestContext {
    /// The `{id}` path parameter as a row id; a 404 when it is not one.
    func rowID(_ name: String = "id") throws -> Int64 {
        guard let id = parameters.get(name, as: Int64.self), id > 0 else { throw AppError.notFound }
        return id
    }
}

extension Request {
    /// The body of a JSON request (which must be sent as `application/json`), up to `limit` bytes, or throws 413/415.
    func jsonBody(limit: Int = AppRequestContext.maxBodySize) async throws -> ByteBuffer {
        guard headers[.contentType]?.lowercased().hasPrefix("application/json") == true else {
            throw AppError(
                .unsupportedMediaType, code: "unsupported_media_type", message: "Send the body as application/json.")
        }
        var request = self
        return try await request.collectBody(within: limit)
    }

    /// Reads the whole body, kept for later readers; a 413 when it is larger than `limit` (by its `Content-Length`,
    /// before reading, or as it streams in).
    mutating func collectBody(within limit: Int) async throws -> ByteBuffer {
        if let length = headers[.contentLength].flatMap(Int.init), length > limit {
            throw HTTPError(.contentTooLarge)
        }
        do {
            return try await collectBody(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw HTTPError(.contentTooLarge)
        }
    }

    /// Decodes a JSON body (which must be sent as `application/json`), or throws 400/413/415.
    func decodeJSON<T: Decodable>(_ type: T.Type, context: AppRequestContext) async throws -> T {
        guard headers[.contentType]?.lowercased().hasPrefix("application/json") == true else {
            throw AppError(
                .unsupportedMediaType, code: "unsupported_media_type", message: "Send the body as application/json.")
        }
        return try await decode(as: T.self, context: context)
    }

    /// Whether this POST came from a plain HTML form (answered with a redirect) rather than a script.
    var isPlainForm: Bool { !wantsJSON }
}

extension Response {
    /// A 303 See Other to a path, as after a form post.
    static func seeOther(_ path: String) -> Response {
        Response(status: .seeOther, headers: [.location: path])
    }

    /// A JSON response from an encodable value, with the API's conventions (snake_case, ISO 8601 in UTC).
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try APIEncoding.encoder.encode(value)
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// The API's one JSON coding policy, for request and response bodies and export files alike: snake_case keys and
/// ISO 8601 dates.
enum APIEncoding {
    /// Reads request bodies and what `encoder` writes (export files).
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()
}
