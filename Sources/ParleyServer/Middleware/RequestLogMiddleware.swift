import HTTPTypes
import Hummingbird
import Logging

/// Writes one log line per request (client address, method, route, status, milliseconds, and the request id the
/// logger carries) and returns the id as `X-Request-ID`; never the query string or the body, which may hold message
/// text or tokens.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    static let requestIDHeader = HTTPField.Name("X-Request-ID")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let started = ContinuousClock.now
        var response = try await next(request, context)
        response.headers[Self.requestIDHeader] = context.id
        let elapsed = started.duration(to: .now)
        context.logger.info(
            "request",
            metadata: [
                "client": .string(context.clientAddress),
                "method": .string(request.method.rawValue),
                "route": .string(context.endpointPath ?? "unmatched"),
                "status": .stringConvertible(response.status.code),
                "ms": .string(
                    String(
                        format: "%.1f",
                        Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)),
            ])
        return response
    }
}
