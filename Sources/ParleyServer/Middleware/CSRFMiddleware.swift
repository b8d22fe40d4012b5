import HTTPTypes
import Hummingbird

/// Double-submit CSRF protection with a signed cookie: a token bound to the session (`CSRFTokens`) in an HttpOnly
/// cookie that every state-changing request must repeat in the `csrf_token` form field or the `X-CSRF-Token` header
/// (pages carry it masked afresh each time, see `CSRFTokenMask`). A cookie made for another session, or none, counts as
/// missing and is replaced. The cookie is `__Host-parley_csrf` when cookies are `Secure` (no other host or path can
/// set it), else `parley_csrf`. Bearer-token requests are exempt (a browser never adds that header by itself), and so
/// is the JSON login, which only accepts `application/json`, and any API request without a user (its route answers
/// 401: every API route but the login needs one). A multipart post to an upload route without the header
/// leaves the check to `UploadForm`, which finds the field in the body before it keeps any file; a multipart post
/// anywhere else is refused.
struct CSRFMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    static let fieldName = "csrf_token"
    static let headerName = HTTPField.Name("X-CSRF-Token")!
    /// The routes that read multipart bodies with `UploadForm`.
    static let uploadRoutes: Set<String> = [
        "/c/{id}/messages", "/api/conversations/{id}/messages", "/settings/import", "/assistants/{id}/icon",
        "/c/{id}/documents", "/api/conversations/{id}/documents", "/knowledge/{id}/documents",
        "/api/collections/{id}/documents",
    ]
    let tokens: CSRFTokens

    /// The cookie's name: with the `__Host-` prefix when it is `Secure`.
    static func cookieName(secure: Bool) -> String { secure ? "__Host-parley_csrf" : "parley_csrf" }

    /// The cookie that carries `token`.
    static func cookie(_ token: String, secure: Bool) -> Cookie {
        Cookie(
            name: cookieName(secure: secure), value: token, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var context = context
        var request = request
        let name = Self.cookieName(secure: context.usesSecureCookies)
        let sessionID = context.identity?.sessionID ?? ""
        let cookieToken = (request.cookies[name]?.value).filter { tokens.isValid($0, sessionID: sessionID) }
        context.csrfToken = cookieToken ?? tokens.make(sessionID: sessionID)
        if request.isUnsafeMethod, context.identity?.viaBearer != true, request.uri.path != "/api/login",
            context.identity != nil || !request.uri.path.hasPrefix("/api/")
        {
            if cookieToken != nil, request.headers[Self.headerName] == nil, request.multipartBoundary != nil,
                Self.uploadRoutes.contains(context.endpointPath ?? "")
            {
                context.csrfCheckedByUploadForm = true
            } else {
                guard let cookieToken, let sent = try await sentToken(&request),
                    CSRFTokenMask.matches(sent, token: cookieToken)
                else { throw AppError.csrf }
            }
        }
        var response = try await next(request, context)
        // A sign-in or sign-out sets the next session's token itself.
        if cookieToken == nil, !response.headers[values: .setCookie].contains(where: { $0.hasPrefix(name + "=") }) {
            response.setCookie(Self.cookie(context.csrfToken, secure: context.usesSecureCookies))
        }
        return response
    }

    /// The one field this middleware reads of a form.
    private struct TokenField: Decodable {
        var csrfToken: String?

        enum CodingKeys: String, CodingKey {
            case csrfToken = "csrf_token"
        }
    }

    /// The token the request repeats: the header, else the form field of a URL-encoded body.
    private func sentToken(_ request: inout Request) async throws -> String? {
        if let header = request.headers[Self.headerName] { return header }
        guard request.headers[.contentType]?.hasPrefix("application/x-www-form-urlencoded") == true else { return nil }
        let body = try await request.collectBody(within: AppRequestContext.maxBodySize)
        return try ParleyRequestDecoder.form(TokenField.self, from: String(buffer: body)).csrfToken
    }
}
