import Hummingbird

/// Finds who is calling: a `Bearer` token, else the session cookie. It only identifies; routes decide what needs a
/// user.
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    static let cookieName = "parley_session"
    let sessions: SessionAuthority

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var context = context
        if let header = request.headers[.authorization] {
            guard header.lowercased().hasPrefix("bearer "),
                let identity = await sessions.identity(token: String(header.dropFirst(7)), viaBearer: true)
            else {
                throw AppError(
                    .unauthorized, code: "invalid_token", message: "The token is missing, expired or invalid.")
            }
            context.identity = identity
        } else if let token = request.cookies[Self.cookieName]?.value {
            context.identity = await sessions.identity(token: token, viaBearer: false)
        }
        return try await next(request, context)
    }
}
