import Foundation
import Hummingbird
import ParleyCore

/// Settings → Account, the user's own: their display name, a new password (which signs out their other sessions), and
/// the sessions signed in, each of which they may sign out; and the same account through the JSON API (`/api/me`,
/// `/api/account/password`). Sessions are named by their `SessionHandle`, never their id.
struct AccountController {
    let accountService: AccountService
    let sessions: SessionAuthority
    let csrf: CSRFTokens
    let pages: PageRenderer

    /// Adds the routes.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/settings/account") { request, context in
            try await page(context, notice: Self.notices[request.uri.queryParameters["done"].map(String.init) ?? ""])
        }
        router.post("/settings/display-name") { request, context in try await setDisplayName(request, context) }
        router.post("/settings/password") { request, context in try await changePassword(request, context) }
        router.post("/settings/sessions/{id}/sign-out") { _, context in try await signOut(context) }
        router.get("/api/me") { _, context in try Response.json(MeJSON(try context.requireUser())) }
        router.post("/api/account/password") { request, context in
            let user = try context.requireUser()
            let body = try await request.decodeJSON(PasswordRequest.self, context: context)
            try await accountService.changePassword(
                of: user, current: body.currentPassword ?? "", new: body.newPassword ?? "",
                keepingSession: context.identity?.sessionID ?? "", address: context.clientAddress)
            return Response(status: .noContent)
        }
    }

    /// What the page says after a change, by the `done` its redirect names.
    private static let notices = [
        "name": "Your display name was saved.",
        "password": "Your password was changed, and your other sessions were signed out.",
        "signed-out": "That session was signed out.",
    ]

    /// The display-name form: the name, or `clear=1` to show the email again.
    struct NameForm: Decodable {
        var displayName: String?
        var clear: FormFlag?

        enum CodingKeys: String, CodingKey {
            case displayName = "display_name", clear
        }
    }

    /// The password form: the current password, the new one and the new one again.
    struct PasswordForm: Decodable {
        var currentPassword: String?
        var newPassword: String?
        var confirmPassword: String?

        enum CodingKeys: String, CodingKey {
            case currentPassword = "current_password", newPassword = "new_password"
            case confirmPassword = "confirm_password"
        }
    }

    /// The body of `POST /api/account/password`.
    struct PasswordRequest: Decodable {
        var currentPassword: String?
        var newPassword: String?
    }

    /// The signed-in user in the JSON API.
    struct MeJSON: Encodable {
        var id: UserID
        var email: String
        var displayName: String?
        var isAdmin: Bool
        var createdAt: Date

        init(_ user: User) {
            id = user.id
            email = user.email
            displayName = user.displayName
            isAdmin = user.isAdmin
            createdAt = user.createdAt
        }
    }

    /// Which of the page's forms an error belongs to.
    private enum Section {
        case name, password
    }

    private func setDisplayName(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let form = try await request.decode(as: NameForm.self, context: context)
        do {
            try await accountService.setDisplayName(form.clear.isOn ? nil : form.displayName ?? "", userID: user.id)
        } catch {
            guard case .invalidDisplayName = error else { throw error }
            return try await refusal(AppError(error), in: .name, context, typedName: form.displayName)
        }
        return .seeOther("/settings/account?done=name")
    }

    private func changePassword(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let form = try await request.decode(as: PasswordForm.self, context: context)
        let new = form.newPassword ?? ""
        if user.hasPassword, new != form.confirmPassword ?? "" {
            let differ = AppError(
                .unprocessableContent, code: "passwords_differ",
                message: "The new password and its confirmation differ; nothing was changed.")
            return try await refusal(differ, in: .password, context)
        }
        do {
            try await accountService.changePassword(
                of: user, current: form.currentPassword ?? "", new: new,
                keepingSession: context.identity?.sessionID ?? "", address: context.clientAddress)
        } catch {
            switch error {
            case .wrongPassword, .noPassword, .invalid, .tooManySignIns:
                return try await refusal(AppError(error), in: .password, context)
            default:
                throw error
            }
        }
        return .seeOther("/settings/account?done=password")
    }

    /// Signs out the user's session of the path's handle: 404 when no session of theirs has it; signing out this
    /// very session signs this browser out.
    private func signOut(_ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let handle = context.parameters.get("id") ?? ""
        guard
            let session = try await sessions.sessions(userID: user.id).first(where: {
                SessionHandle.of($0.id) == handle
            })
        else { throw AppError.notFound }
        do {
            try await sessions.signOut(sessionID: session.id, userID: user.id)
        } catch {
            // Gone meanwhile (it expired, or was signed out from elsewhere): what was asked is done.
            guard error == .notFound else { throw error }
        }
        if session.id == context.identity?.sessionID { return AuthController.signedOut(context, csrf: csrf) }
        return .seeOther("/settings/account?done=signed-out")
    }

    /// The page again with a refusal shown in its section, under the refusal's status and headers.
    private func refusal(_ error: AppError, in section: Section, _ context: AppRequestContext, typedName: String? = nil)
        async throws -> Response
    {
        var response = try await page(
            context, error: (section, error.message), typedName: typedName, status: error.status)
        for field in error.headers { response.headers.append(field) }
        return response
    }

    private func page(
        _ context: AppRequestContext, notice: String? = nil, error: (Section, String)? = nil, typedName: String? = nil,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let user = try context.requireUser()
        let current = context.identity?.sessionID
        let list = try await sessions.sessions(userID: user.id).map { session -> [String: Any] in
            var row: [String: Any] = [
                "handle": SessionHandle.of(session.id), "device": DeviceName.describe(session.origin.userAgent),
                "address": session.origin.address ?? "unknown", "is_current": session.id == current,
                "created_at": session.createdAt.formatted(.iso8601),
            ]
            row["last_used_at"] = session.lastUsedAt?.formatted(.iso8601)
            return row
        }
        var values: [String: Any] = [
            "email": user.email, "display_name": typedName ?? user.displayName ?? "",
            "has_name": user.displayName != nil,
            "has_password": user.hasPassword, "sessions": list,
            "min_password": AccountRules.minimumPasswordLength, "max_name": AccountRules.maximumDisplayNameLength,
        ]
        values["notice"] = notice
        switch error?.0 {
        case .name?: values["name_error"] = error?.1
        case .password?: values["password_error"] = error?.1
        case nil: break
        }
        return pages.page("account", title: "Account", context: context, values: values, status: status)
    }
}
