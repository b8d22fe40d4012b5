import Hummingbird

/// Answers 501 to a request whose method is not a standard HTTP one, before the request metrics see it: their labels
/// come from the method, and HTTP/2 carries any token as a method, so a client could otherwise add series without end.
struct KnownMethodMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    /// The methods of RFC 9110 and PATCH (RFC 5789).
    static let known: Set<HTTPRequest.Method> = [.get, .head, .post, .put, .delete, .connect, .options, .trace, .patch]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard Self.known.contains(request.method) else { return Response(status: .notImplemented) }
        return try await next(request, context)
    }
}
