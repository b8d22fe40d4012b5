import Foundation
import Hummingbird
import ParleyCore

/// Sign-in, sign-up and sign-out, for the browser (forms and the session cookie) and the API (tokens).
struct AuthController {
    let services: AppServices

    /// Adds the routes.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/login") { request, context in
            let next = LocalRedirect.path(request.uri.queryParameters["next"].map(String.init))
            return context.identity == nil ? loginPage(context, next: next) : Response.seeOther(next ?? "/c")
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

    private func login(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        var request = request
        let form = try await FormFields(request: &request)
        let email = form["email"] ?? ""
        let next = LocalRedirect.path(form["next"])
        do {
            let user = try await authenticate(email: email, password: form["password"] ?? "", context: context)
            return try await signedIn(user, goingTo: next ?? "/c", context)
        } catch let error as AppError where error.status == .unauthorized || error.status == .tooManyRequests {
            var response = loginPage(context, email: email, error: error.message, status: error.status, next: next)
            for field in error.headers { response.headers.append(field) }
            return response
        }
    }

    private func apiLogin(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let credentials = try await request.decodeJSON(Credentials.self)
        let user = try await authenticate(email: credentials.email, password: credentials.password, context: context)
        let (token, _, expiresAt) = try await services.sessions.signIn(user)
        struct TokenBody: Encodable { var token: String; var expiresAt: Date }
        return try .json(TokenBody(token: token, expiresAt: expiresAt))
    }

    /// Checks a password, throttled per address and per account (`LoginThrottle`); the same 401 whether or not the
    /// email exists.
    func authenticate(email: String, password: String, context: AppRequestContext) async throws -> User {
        if let wait = services.throttle.retryAfter(email: email, address: context.clientAddress) {
            throw AppError.tooManyRequests(code: "too_many_attempts", message: "Too many failed sign-ins.", wait: wait)
        }
        // SQLite reads a bound string up to its first NUL, so "a@b.c\0x" would find a@b.c under a throttle key of its own.
        let user = email.unicodeScalars.contains("\0") ? nil : try await services.accounts.user(email: email)
        let matches = try await services.hasher.verify(password, hash: user?.passwordHash)
        guard let user, matches, !user.isDisabled else {
            services.throttle.recordFailure(email: email, address: context.clientAddress)
            throw AppError(.unauthorized, code: "invalid_credentials", message: "The email or password is not right.")
        }
        return user
    }

    private func signup(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        var request = request
        let form = try await FormFields(request: &request)
        let email = (form["email"] ?? "").trimmingCharacters(in: .whitespaces)
        let password = form["password"] ?? ""
        // Refused before the password is hashed: a hash costs a sign-in's time, and closed sign-up must cost nothing.
        guard try await signupIsOpen() else {
            throw AppError(.forbidden, code: "signup_closed", message: "Sign-up is closed. Ask an admin for an account.")
        }
        if let problem = Self.emailProblem(email) ?? PasswordHasher.problem(with: password) {
            return signupPage(context, email: email, error: problem, status: .unprocessableContent)
        }
        if let wait = services.signupThrottle?.admit(key: context.clientAddress) {
            throw AppError.tooManyRequests(code: "too_many_attempts", message: "Too many sign-ups from your address.", wait: wait)
        }
        let hash = try await services.hasher.hash(password)
        do {
            let user = try await services.accounts.signUp(email: email, passwordHash: hash,
                                                          allowWhenUsersExist: services.settings.signup == .open)
            return try await signedIn(user, context)
        } catch StoreError.duplicate {
            return signupPage(context, email: email, error: "An account with this email exists already. Sign in instead.",
                              status: .conflict)
        } catch StoreError.signupClosed {
            throw AppError(.forbidden, code: "signup_closed", message: "Sign-up is closed. Ask an admin for an account.")
        }
    }

    /// Whether sign-up may create an account now: `open`, or `first-user` while there is no account.
    private func signupIsOpen() async throws -> Bool {
        switch services.settings.signup {
        case .open: true
        case .firstUser: try await !services.accounts.hasUsers()
        case .closed: false
        }
    }

    private func logout(_ context: AppRequestContext, everywhere: Bool) async throws -> Response {
        if let identity = context.identity {
            if everywhere {
                try await services.sessions.signOutEverywhere(userID: identity.user.id)
            } else {
                try await services.sessions.signOut(sessionID: identity.sessionID)
            }
        }
        return signedOut(context)
    }

    /// The redirect to the sign-in page that also clears the session cookie and gives a new CSRF token.
    func signedOut(_ context: AppRequestContext) -> Response {
        let secure = context.usesSecureCookies
        var response = Response.seeOther("/login")
        response.setCookie(Cookie(name: AuthenticationMiddleware.cookieName, value: "", maxAge: 0, path: "/",
                                  secure: secure, httpOnly: true, sameSite: .lax))
        response.setCookie(CSRFMiddleware.cookie(services.csrf.make(sessionID: ""), secure: secure))
        return response
    }

    /// The redirect into the app with the new session's cookie and a CSRF token bound to that session.
    private func signedIn(_ user: User, goingTo path: String = "/c", _ context: AppRequestContext) async throws -> Response {
        let (token, sessionID, expiresAt) = try await services.sessions.signIn(user)
        let secure = context.usesSecureCookies
        var response = Response.seeOther(path)
        response.setCookie(Cookie(name: AuthenticationMiddleware.cookieName, value: token, expires: expiresAt, path: "/",
                                  secure: secure, httpOnly: true, sameSite: .lax))
        response.setCookie(CSRFMiddleware.cookie(services.csrf.make(sessionID: sessionID), secure: secure))
        return response
    }

    private func loginPage(_ context: AppRequestContext, email: String = "", error: String? = nil,
                           status: HTTPResponse.Status = .ok, next: String? = nil) -> Response {
        var values: [String: Any] = ["email": email, "signup_open": services.settings.signup != .closed]
        values["error"] = error
        values["next"] = next
        return services.pages.page("login", title: "Sign in", context: context, values: values, status: status)
    }

    private func signupPage(_ context: AppRequestContext, email: String = "", error: String? = nil,
                            status: HTTPResponse.Status = .ok) -> Response {
        var values: [String: Any] = ["email": email, "closed": services.settings.signup == .closed]
        values["error"] = error
        return services.pages.page("signup", title: "Create an account", context: context, values: values, status: status)
    }

    /// Why an email is not acceptable, or nil.
    static func emailProblem(_ email: String) -> String? {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
              !email.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) else {
            return "Enter a valid email address."
        }
        return nil
    }
}
