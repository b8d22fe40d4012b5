import HTTPTypes
import Hummingbird

/// Double-submit CSRF protection: a random token in an HttpOnly cookie that every state-changing request
/// must repeat in the `csrf_token` form field or the `X-CSRF-Token` header (pages carry it masked afresh each time,
/// see `CSRFTokenMask`). Bearer-token requests are exempt
/// (a browser never adds that header by itself), and so is the JSON login, which only accepts `application/json`.
/// A multipart post to an upload route without the header leaves the check to `UploadForm`, which finds the field in
/// the body before it keeps any file; a multipart post anywhere else is refused.
struct CSRFMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    static let cookieName = "parley_csrf"
    static let fieldName = "csrf_token"
    static let headerName = HTTPField.Name("X-CSRF-Token")!
    /// The routes that read multipart bodies with `UploadForm`.
    static let uploadRoutes: Set<String> = ["/c/{id}/messages", "/settings/import"]
    let secureCookies: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        var request = request
        let cookieToken = request.cookies[Self.cookieName]?.value
        context.csrfToken = cookieToken ?? RandomToken.make()
        if request.isUnsafeMethod, context.identity?.viaBearer != true, request.uri.path != "/api/login" {
            if cookieToken != nil, request.headers[Self.headerName] == nil, request.multipartBoundary != nil,
               Self.uploadRoutes.contains(context.endpointPath ?? "") {
                context.csrfCheckedByUploadForm = true
            } else {
                guard let cookieToken, let sent = try await sentToken(&request),
                      CSRFTokenMask.matches(sent, token: cookieToken) else { throw AppError.csrf }
            }
        }
        var response = try await next(request, context)
        if cookieToken == nil {
            response.setCookie(Cookie(name: Self.cookieName, value: context.csrfToken, path: "/", secure: secureCookies,
                                      httpOnly: true, sameSite: .lax))
        }
        return response
    }

    /// The token the request repeats: the header, else the form field of a URL-encoded body.
    private func sentToken(_ request: inout Request) async throws -> String? {
        if let header = request.headers[Self.headerName] { return header }
        guard request.headers[.contentType]?.hasPrefix("application/x-www-form-urlencoded") == true else { return nil }
        let form = try await FormFields(request: &request)
        return form[Self.fieldName]
    }
}
