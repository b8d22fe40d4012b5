import HTTPTypes
import Hummingbird

/// Sets the request's client address and whether its cookies are `Secure`, from a trusted proxy's forwarding headers
/// (`TrustedProxies`) or else from the socket: the request log and every throttle key on that address. Also keeps the
/// `User-Agent`, which a sign-in records with the address.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    let proxies: TrustedProxies
    /// `PARLEY_COOKIE_SECURE`: nil is automatic.
    let cookieSecure: Bool?
    /// Whether cookies are `Secure` in automatic mode when no trusted proxy says HTTPS.
    let secureWithoutProxy: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var context = context
        context.userAgent = request.headers[.userAgent]
        if !proxies.ranges.isEmpty {
            context.clientAddress = proxies.clientAddress(
                peer: context.peerAddress, forwardedFor: request.headers[values: Self.forwardedFor])
        }
        context.usesSecureCookies =
            cookieSecure
            ?? (secureWithoutProxy
                || proxies.forwardedHTTPS(
                    peer: context.peerAddress, forwardedProto: request.headers[values: Self.forwardedProto]))
        return try await next(request, context)
    }
}
