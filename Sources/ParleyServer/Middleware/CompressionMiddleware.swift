import HTTPTypes
import Hummingbird

/// Compresses text responses with gzip for clients that accept it. Only bodies of known length are compressed (they
/// are in memory already): event streams and any other streamed body go out as they are written, each write
/// flushed. Bodies already encoded, partial, too small to gain or too large to hold twice are left alone too.
struct CompressionMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var response = try await next(request, context)
        guard Gzip.isCompressible(contentType: response.headers[.contentType]),
            response.headers[.contentEncoding] == nil, response.status != .partialContent
        else { return response }
        if !response.headers[values: .vary].contains("Accept-Encoding") {
            response.headers.append(.init(name: .vary, value: "Accept-Encoding"))
        }
        guard request.method != .head, Gzip.isAccepted(by: request), let length = response.body.contentLength,
            (Gzip.minimumSize...Gzip.maximumSize).contains(length)
        else { return response }
        response.headers[.contentEncoding] = "gzip"
        response.headers[.contentLength] = nil
        let body = response.body
        response.body = ResponseBody { writer in
            let collector = CollectingWriter()
            try await body.write(collector)
            try await writer.write(Gzip.compress(collector.collected))
            try await writer.finish(nil)
        }
        return response
    }
}

/// Gathers a response body in memory, for compressing it whole.
private final class CollectingWriter: ResponseBodyWriter {
    var collected = ByteBuffer()

    func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        collected.writeBuffer(&buffer)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
