import Foundation
import Hummingbird
import ParleyCore

/// The page an invite link opens: a sign-up form that works whatever `PARLEY_SIGNUP` says, once, within the invite's 7
/// days (a used or expired link is a 410 page that says so; an unknown or withdrawn one a 404), for the invite's email
/// when it names one. The new account is signed in at once.
struct InviteController {
    let invites: InviteService
    let sessions: SessionAuthority
    let csrf: CSRFTokens
    let pages: PageRenderer

    /// Adds the routes.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/invite/{token}") { _, context in
            let invite = try await invites.usableInvite(digest: try Self.digest(context))
            return page(context, invite: invite)
        }
        router.post("/invite/{token}") { request, context in try await redeem(request, context) }
    }

    /// The form's fields.
    struct InviteForm: Decodable {
        var email: String?
        var password: String?
    }

    /// The digest of the path's token; a 404 for text that is no token.
    private static func digest(_ context: AppRequestContext) throws -> String {
        let token = context.parameters.get("token") ?? ""
        guard token.utf8.count == 32, token.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
        else { throw AccountError.inviteNotFound }
        return DigestShareTokens().digest(token)
    }

    private func redeem(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let form = try await request.decode(as: InviteForm.self, context: context)
        let digest = try Self.digest(context)
        let user: User
        do {
            user = try await invites.redeem(
                digest: digest, email: form.email ?? "", password: form.password ?? "", address: context.clientAddress)
        } catch {
            switch error {
            case .invalid, .emailTaken:
                let invite = try await invites.usableInvite(digest: digest)
                let shown = AppError(error)
                return page(context, invite: invite, email: form.email, error: shown.message, status: shown.status)
            default:
                throw error
            }
        }
        return try await AuthController.signedIn(user, goingTo: "/c", context, sessions: sessions, csrf: csrf)
    }

    private func page(
        _ context: AppRequestContext, invite: Invite, email: String? = nil, error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) -> Response {
        var values: [String: Any] = ["email": invite.email ?? email ?? "", "fixed_email": invite.email != nil]
        values["error"] = error
        values["expires_at"] = invite.expiresAt.formatted(.iso8601)
        return pages.page("invite", title: "Create your account", context: context, values: values, status: status)
    }
}
