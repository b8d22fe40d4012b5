import Foundation
import Hummingbird
import ParleyCore

/// Sign-in, sign-up and sign-out, for the browser (forms and the session cookie) and the API (tokens).
struct AuthController {
    let settings: ServerSettings
    let accountService: AccountService
    let sessions: SessionAuthority
    let csrf: CSRFTokens
    let pages: PageRenderer
    /// The identity provider, when single sign-on is configured.
    let singleSignOn: OpenIDProvider?

    /// Adds the routes.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/login") { request, context in
            let next = LocalRedirect.path(request.uri.queryParameters["next"].map(String.init))
            guard context.identity == nil else { return Response.seeOther(next ?? "/c") }
            let failure = request.uri.queryParameters["sso"].flatMap { SingleSignOnError(code: String($0)) }
            return await loginPage(
                context, error: failure?.message, status: failure == nil ? .ok : .unauthorized, next: next)
        }
        router.post("/login") { request, context in try await login(request, context) }
        router.post("/logout") { _, context in try await logout(context, everywhere: false) }
        router.post("/logout/everywhere") { _, context in try await logout(context, everywhere: true) }
        router.get("/signup") { _, context in signupPage(context) }
        router.post("/signup") { request, context in try await signup(request, context) }
        router.post("/api/login") { request, context in try await apiLogin(request, context) }
    }

    /// The credentials of the JSON login.
    struct Credentials: Decodable {
        var email: String
        var password: String
    }

    /// The sign-in and sign-up forms; the sign-in page also repeats where to go next.
    struct CredentialsForm: Decodable {
        var email: String?
        var password: String?
        var next: String?
    }

    private func login(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let form = try await request.decode(as: CredentialsForm.self, context: context)
        let email = form.email ?? ""
        let next = LocalRedirect.path(form.next)
        let user: User
        do {
            user = try await accountService.authenticate(
                email: email, password: form.password ?? "",
                address: context.clientAddress)
        } catch {
            switch error {
            case .invalidCredentials, .tooManySignIns, .passwordSignInOff:
                // Shown on the sign-in page again, with the status and `Retry-After` the API gets.
                let shown = AppError(error)
                var response = await loginPage(
                    context, email: email, error: shown.message, status: shown.status, next: next)
                for field in shown.headers { response.headers.append(field) }
                return response
            default:
                throw error
            }
        }
        return try await signedIn(user, goingTo: next ?? "/c", context)
    }

    private func apiLogin(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let credentials = try await request.decodeJSON(Credentials.self, context: context)
        let user = try await accountService.authenticate(
            email: credentials.email, password: credentials.password, address: context.clientAddress)
        let (token, _, expiresAt) = try await sessions.signIn(user, origin: context.sessionOrigin)
        struct TokenBody: Encodable { var token: String; var expiresAt: Date }
        return try .json(TokenBody(token: token, expiresAt: expiresAt))
    }

    private func signup(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let form = try await request.decode(as: CredentialsForm.self, context: context)
        let email = (form.email ?? "").trimmingCharacters(in: .whitespaces)
        let user: User
        do {
            user = try await accountService.signUp(
                email: email, password: form.password ?? "",
                address: context.clientAddress)
        } catch {
            switch error {
            case .invalid(let problem):
                return signupPage(context, email: email, error: problem, status: .unprocessableContent)
            case .emailTaken:
                let taken = "An account with this email exists already. Sign in instead."
                return signupPage(context, email: email, error: taken, status: .conflict)
            default:
                throw error
            }
        }
        return try await signedIn(user, context)
    }

    private func logout(_ context: AppRequestContext, everywhere: Bool) async throws -> Response {
        if let identity = context.identity {
            if everywhere {
                try await sessions.signOutEverywhere(userID: identity.user.id)
            } else {
                try await sessions.signOut(sessionID: identity.sessionID)
            }
        }
        return Self.signedOut(context, csrf: csrf)
    }

    /// The redirect to the sign-in page that also clears the session cookie and gives a new CSRF token.
    static func signedOut(_ context: AppRequestContext, csrf: CSRFTokens) -> Response {
        let secure = context.usesSecureCookies
        var response = Response.seeOther("/login")
        response.setCookie(
            Cookie(
                name: AuthenticationMiddleware.cookieName, value: "", maxAge: 0, path: "/",
                secure: secure, httpOnly: true, sameSite: .lax))
        response.setCookie(CSRFMiddleware.cookie(csrf.make(sessionID: ""), secure: secure))
        return response
    }

    /// The redirect into the app with the new session's cookie and a CSRF token bound to that session.
    private func signedIn(_ user: User, goingTo path: String = "/c", _ context: AppRequestContext) async throws
        -> Response
    {
        try await Self.signedIn(user, goingTo: path, context, sessions: sessions, csrf: csrf)
    }

    /// The redirect to `path` with a new session's cookie for `user` (recording the request's device and address) and a
    /// CSRF token bound to that session.
    static func signedIn(
        _ user: User, goingTo path: String, _ context: AppRequestContext, sessions: SessionAuthority, csrf: CSRFTokens
    ) async throws -> Response {
        let (token, sessionID, expiresAt) = try await sessions.signIn(user, origin: context.sessionOrigin)
        let secure = context.usesSecureCookies
        var response = Response.seeOther(path)
        response.setCookie(
            Cookie(
                name: AuthenticationMiddleware.cookieName, value: token, expires: expiresAt, path: "/",
                secure: secure, httpOnly: true, sameSite: .lax))
        response.setCookie(CSRFMiddleware.cookie(csrf.make(sessionID: sessionID), secure: secure))
        return response
    }

    /// The sign-in page: the single sign-on button when configured (saying so when the provider is not answering),
    /// and the password form, folded away as the admins' way in when password sign-in is off.
    private func loginPage(
        _ context: AppRequestContext, email: String = "", error: String? = nil,
        status: HTTPResponse.Status = .ok, next: String? = nil
    ) async -> Response {
        var values: [String: Any] = [
            "email": email, "signup_open": settings.passwordSignUp,
            "password_login": settings.passwordLogin,
        ]
        values["error"] = error
        values["next"] = next
        if let singleSignOn {
            var sso: [String: Any] = [
                "label": singleSignOn.settings.buttonLabel,
                "href": "/auth/sso" + (next.map { "?next=" + FormEncoding.encode($0) } ?? ""),
            ]
            sso["unavailable"] = await singleSignOn.isUnavailable
            values["sso"] = sso
        }
        return pages.page("login", title: "Sign in", context: context, values: values, status: status)
    }

    private func signupPage(
        _ context: AppRequestContext, email: String = "", error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) -> Response {
        var values: [String: Any] = ["email": email, "closed": !settings.passwordSignUp]
        values["error"] = error
        return pages.page("signup", title: "Create an account", context: context, values: values, status: status)
    }
}
