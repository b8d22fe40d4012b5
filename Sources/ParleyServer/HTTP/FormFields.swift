import Foundation
import Hummingbird

/// The fields of a URL-encoded form body, read once (the body stays available to later readers).
struct FormFields: Sendable {
    private var values: [String: String] = [:]

    /// Reads the request's body (up to the context's limit; a larger one is refused with 413 before it is all read).
    init(request: inout Request, limit: Int = AppRequestContext.maxBodySize) async throws {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw HTTPError(.contentTooLarge)
        }
        let body = try await request.collectBody(upTo: limit)
        self.init(encoded: String(buffer: body))
    }

    /// Parses `a=1&b=2`, decoding `+` and percent escapes; the first value of a repeated name wins.
    init(encoded: String) {
        for pair in encoded.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]) else { continue }
            let value = parts.count > 1 ? Self.decode(parts[1]) ?? "" : ""
            if values[name] == nil { values[name] = value }
        }
    }

    /// The value of a field.
    subscript(name: String) -> String? { values[name] }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
