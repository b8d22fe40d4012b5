import Foundation
import Hummingbird
import ParleyCore

/// Invite links on the users page: an admin makes one (for one email, or anyone), sees its link once, and may withdraw
/// it while unused. The link's token is stored only as its digest (`DigestShareTokens`, as share links are).
extension AdminUsersController {
    /// The invite form: an optional email the account must use.
    struct InviteForm: Decodable {
        var email: String?
    }

    /// Adds the invite routes to the admin group.
    func addInviteRoutes(to admin: RouterGroup<AppRequestContext>) {
        admin.post("invites") { request, context in try await createInvite(request, context) }
        admin.post("invites/{id}/revoke") { _, context in try await revokeInvite(context) }
    }

    /// Makes an invite and shows its link, once, on the users page (201); a bad email shows the page with a 422.
    private func createInvite(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let admin = try context.requireUser()
        let form = try await request.decode(as: InviteForm.self, context: context)
        let tokens = DigestShareTokens()
        let token = tokens.make()
        let invite: Invite
        do {
            invite = try await invites.create(digest: tokens.digest(token), email: form.email, createdBy: admin.id)
        } catch {
            switch error {
            case .invalid(let problem): return try await list(context, error: problem, status: .unprocessableContent)
            default: throw error
            }
        }
        var made: [String: Any] = ["path": "/invite/\(token)", "expires_at": invite.expiresAt.formatted(.iso8601)]
        made["email"] = invite.email
        return try await list(context, status: .created, values: ["made_invite": made])
    }

    /// Withdraws the unused invite of the path; 404 when there is none, or it was used.
    private func revokeInvite(_ context: AppRequestContext) async throws -> Response {
        let id = try context.rowID()
        do {
            try await invites.revoke(id: id)
        } catch {
            guard error == .inviteNotFound else { throw error }
            throw AppError.notFound
        }
        return .seeOther("/admin/users")
    }

    /// The template values of every invite: its email, dates and whether it is waiting, used or expired.
    func inviteValues() async throws -> [[String: Any]] {
        let now = invites.now()
        return try await invites.invites().map { invite in
            var values: [String: Any] = [
                "id": invite.id, "email": invite.email ?? "anyone", "created_at": invite.createdAt.formatted(.iso8601),
                "expires_at": invite.expiresAt.formatted(.iso8601), "is_usable": invite.isUsable(at: now),
                "state": invite.usedAt != nil ? "used" : invite.expiresAt <= now ? "expired" : "waiting",
            ]
            values["used_at"] = invite.usedAt?.formatted(.iso8601)
            return values
        }
    }
}
