import Foundation
import Hummingbird
import ParleyCore

/// Single sign-on's two routes: `/auth/sso` sends the browser to the identity provider (authorization code flow with
/// PKCE, `state` and `nonce`), and `/auth/sso/callback` takes it back, signs the person in and opens where they were
/// going. A failure lands on the sign-in page with a code naming what went wrong, never a token.
struct SingleSignOnController {
    let provider: OpenIDProvider
    let pending: PendingSignIns
    let accounts: SingleSignOnAccounts
    let sessions: SessionAuthority
    let csrf: CSRFTokens
    /// The wall clock the sign-in's expiry and the ID token's are checked by.
    let now: @Sendable () -> Date
    /// Sign-ins one address may begin (each holds a place in `pending`) within a minute.
    let starts: SlidingWindowLimiter

    /// The cookie that ties a callback to the browser that began the sign-in (it holds the `state`).
    static let cookieName = "parley_sso"

    /// Adds the routes.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/auth/sso") { request, context in await start(request, context) }
        router.get("/auth/sso/callback") { request, context in await callback(request, context) }
    }

    private func start(_ request: Request, _ context: AppRequestContext) async -> Response {
        let next = LocalRedirect.path(request.uri.queryParameters["next"].map(String.init)) ?? "/c"
        if await starts.admit(key: context.clientAddress, now: now()) != nil {
            return failed(.tooManyAttempts, next: next, context)
        }
        let metadata: ProviderMetadata
        do {
            metadata = try await provider.discovered()
        } catch {
            return failed(error, next: next, context)
        }
        let state: String
        let signIn: PendingSignIn
        do {
            (state, signIn) = try await pending.begin(next: next, now: now())
        } catch {
            return failed(.unavailable, next: next, context)
        }
        let settings = provider.settings
        let query = FormEncoding.encode([
            ("response_type", "code"), ("client_id", settings.clientID), ("redirect_uri", settings.redirectURI),
            ("scope", settings.scopes), ("state", state), ("nonce", signIn.nonce),
            ("code_challenge", signIn.codeChallenge), ("code_challenge_method", "S256"),
        ])
        let separator = metadata.authorizationEndpoint.contains("?") ? "&" : "?"
        var response = Response.seeOther(metadata.authorizationEndpoint + separator + query)
        response.setCookie(stateCookie(state, maxAge: Int(PendingSignIns.lifetime), context))
        return response
    }

    private func callback(_ request: Request, _ context: AppRequestContext) async -> Response {
        let query = request.uri.queryParameters
        var signIn: PendingSignIn?
        if let state = query["state"].map(String.init), let cookie = request.cookies[Self.cookieName]?.value,
            RandomToken.constantTimeEqual(state, cookie)
        {
            signIn = await pending.finish(state: state, now: now())
        }
        // A refusal signs nobody in, so it is shown even when the provider left out the state.
        if let refusal = query["error"] {
            return failed(refusal == "access_denied" ? .cancelled : .unavailable, next: signIn?.next ?? "/c", context)
        }
        guard let signIn else { return failed(.expired, next: "/c", context) }
        guard let code = query["code"].map(String.init), !code.isEmpty else {
            return failed(.rejected, next: signIn.next, context)
        }
        do {
            let identity = try await provider.identity(code: code, signIn: signIn, now: now())
            let user = try await accounts.signIn(identity)
            var response: Response
            do {
                response = try await AuthController.signedIn(
                    user, goingTo: signIn.next, context, sessions: sessions, csrf: csrf)
            } catch {
                return failed(.failed, next: signIn.next, context)
            }
            response.setCookie(stateCookie("", maxAge: 0, context))
            return response
        } catch {
            return failed(error, next: signIn.next, context)
        }
    }

    /// The way back to the sign-in page, saying what went wrong and keeping where the person was going.
    private func failed(_ error: SingleSignOnError, next: String, _ context: AppRequestContext) -> Response {
        var location = "/login?sso=" + error.code
        if next != "/c" { location += "&next=" + FormEncoding.encode(next) }
        var response = Response.seeOther(location)
        response.setCookie(stateCookie("", maxAge: 0, context))
        return response
    }

    /// The state cookie, sent back on the provider's top-level redirect (`SameSite=Lax`) to the callback alone.
    private func stateCookie(_ value: String, maxAge: Int, _ context: AppRequestContext) -> Cookie {
        Cookie(
            name: Self.cookieName, value: value, maxAge: maxAge, path: "/auth/sso", secure: context.usesSecureCookies,
            httpOnly: true, sameSite: .lax)
    }
}
