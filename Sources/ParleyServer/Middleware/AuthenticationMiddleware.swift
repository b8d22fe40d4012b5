import Hummingbird

/// Finds who is calling: a `Bearer` session token or personal API key (a key only on the paths that take one), else
/// the session cookie. It only identifies; routes decide what needs a user.
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    static let cookieName = "parley_session"
    let sessions: SessionAuthority
    let apiKeys: APIKeyAuthority

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var context = context
        if let header = request.headers[.authorization] {
            let token = String(header.dropFirst(7))
            if header.lowercased().hasPrefix("bearer "), token.hasPrefix(APIKeyAuthority.prefix) {
                guard APIKeyAuthority.accepts(path: request.uri.path) else {
                    throw AppError(
                        .unauthorized, code: "invalid_token",
                        message: "API keys work on the JSON API and /v1 alone; sign in for this.")
                }
                guard let identity = await apiKeys.identity(key: token) else {
                    throw AppError(
                        .unauthorized, code: "invalid_api_key", message: "The API key is unknown, revoked or expired.")
                }
                context.identity = identity
                return try await next(request, context)
            }
            guard header.lowercased().hasPrefix("bearer "),
                let identity = await sessions.identity(token: token, viaBearer: true)
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
