import CompressNIO
import Hummingbird

/// gzip for responses: whether a client takes it, which content types gain from it, and the compression itself.
enum Gzip {
    /// Bodies smaller than this are sent as they are: the gzip header and the work cost more than they save.
    static let minimumSize = 512
    /// Larger bodies are sent as they are rather than held in memory a second time while compressed.
    static let maximumSize = 16 << 20

    /// Whether the request's `Accept-Encoding` allows gzip (named, or through `*`, with a quality above 0).
    static func isAccepted(by request: Request) -> Bool {
        guard let header = request.headers[.acceptEncoding] else { return false }
        var wildcard = false
        for item in header.lowercased().split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            switch parts.first {
            case "gzip": return quality > 0
            case "*": wildcard = quality > 0
            default: continue
            }
        }
        return wildcard
    }

    /// Whether a body of this content type is text worth compressing. Event streams are excluded: each event must
    /// reach the browser as soon as it is written.
    static func isCompressible(contentType: String?) -> Bool {
        guard let type = contentType?.lowercased().split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
        else {
            return false
        }
        if type == "text/event-stream" { return false }
        return type.hasPrefix("text/")
            || [
                "application/json", "application/javascript", "application/manifest+json",
                "image/svg+xml", "application/xml",
            ].contains(type)
    }

    /// The gzip encoding of `buffer`; static files, compressed once at start, take the best level.
    static func compress(_ buffer: ByteBuffer, level: ZlibConfiguration.CompressionLevel = .defaultCompressionLevel)
        throws -> ByteBuffer
    {
        var input = buffer
        return try input.compress(with: .gzip(configuration: .init(compressionLevel: level)))
    }
}
