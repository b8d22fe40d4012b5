import Foundation
import HTTPTypes
import Hummingbird
import ParleyCore

/// Share links: publishing a conversation, the public read-only page, the owner's list and revocation, and forking.
struct ShareController {
    let shares: ShareService
    let pages: PageRenderer

    /// Adds the routes.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.post("/c/{id}/share") { request, context in try await publish(request, context) }
        router.get("/shares") { request, context in try await list(request, context) }
        router.post("/shares/{id}/revoke") { request, context in try await revoke(request, context) }
        router.get("/s/{token}") { _, context in try await show(context) }
        router.post("/s/{token}/revoke") { request, context in try await revokeByToken(request, context) }
        router.post("/s/{token}/fork") { request, context in try await fork(request, context) }
    }

    /// The answer to a script that created a link: where it is, and when it expires.
    struct LinkJSON: Encodable {
        var url: String
        var expiresAt: Date?
    }

    /// The answer to a script that updated links: how many now show the new snapshot.
    struct UpdatedJSON: Encodable {
        var updated: Int
    }

    /// The share form: whose name the link shows, when it expires, whether it includes the model's reasoning, and
    /// whether to refresh the existing links instead. `include_reasoning` is a boolean (a JSON `true` or `false`, or
    /// the checked box's `true`), off when left out; anything else is refused, named.
    struct PublishForm: Decodable {
        var author: String?
        var expires: String?
        var update: FormFlag?
        var includeReasoning = false

        enum CodingKeys: String, CodingKey {
            case author, expires, update
            /// As a form names it, and as the API's decoder hands JSON's `include_reasoning` over (camel-cased).
            case includeReasoning = "include_reasoning", includeReasoningFromJSON = "includeReasoning"
        }

        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: CodingKeys.self)
            author = try fields.decodeIfPresent(String.self, forKey: .author)
            expires = try fields.decodeIfPresent(String.self, forKey: .expires)
            update = try fields.decodeIfPresent(FormFlag.self, forKey: .update)
            let key = fields.contains(.includeReasoning) ? CodingKeys.includeReasoning : .includeReasoningFromJSON
            guard fields.contains(key) else { return }
            guard let value = try? fields.decode(Bool.self, forKey: key) else {
                throw DecodingError.typeMismatch(
                    Bool.self, .init(codingPath: [CodingKeys.includeReasoning], debugDescription: "true or false"))
            }
            includeReasoning = value
        }
    }

    private func publish(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.rowID()
        let form = try await request.decode(as: PublishForm.self, context: context)
        guard let author = ShareAuthor(rawValue: form.author ?? ShareAuthor.anonymous.rawValue),
            let expiry = ShareExpiry(rawValue: form.expires ?? ShareExpiry.never.rawValue)
        else {
            throw AppError(
                .unprocessableContent, code: "invalid_share_options",
                message: "Choose whether the link shows your name, and when it expires.")
        }
        let options = ShareOptions(author: author, expiry: expiry, includesReasoning: form.includeReasoning)
        let publication = try await shares.publish(
            conversationID: id, user: user, options: options,
            update: form.update.isOn)
        switch publication {
        case .created(let share, let token):
            return request.isPlainForm
                ? .seeOther("/shares?created=\(token)")
                : try .json(LinkJSON(url: "/s/\(token)", expiresAt: share.expiresAt), status: .created)
        case .updated(let count):
            return request.isPlainForm ? .seeOther("/shares?updated=\(count)") : try .json(UpdatedJSON(updated: count))
        }
    }

    private func list(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let shares = try await shares.shares(userID: user.id)
        var values: [String: Any] = ["shares": shares.map(listValues)]
        values["created_url"] = try await createdURL(
            request.uri.queryParameters["created"].map(String.init), userID: user.id)
        values["updated"] = request.uri.queryParameters["updated"].flatMap { Int($0) }
        return pages.page("shares", title: "Shared links", context: context, values: values)
    }

    private func show(_ context: AppRequestContext) async throws -> Response {
        let token = try Self.token(context)
        let shared = try await shares.view(token: token)
        var share: [String: Any] = [
            "token": token, "title": shared.share.title,
            "snapshot_at": shared.share.snapshotAt.formatted(.iso8601),
        ]
        share["author"] = shared.share.authorName
        var response = pages.page(
            "share", title: shared.share.title, context: context,
            values: [
                "share": share,
                "has_messages": !shared.messages.isEmpty,
                "noindex": true,
                "demo_banner": false,  // how this server is set up is none of a link's visitors' business
                "signed_in": context.identity != nil,
            ],
            fragments: [
                "messages_html": shared.messages.map { message in
                    // A snapshot keeps no usage, so none is shown; its images are reached through the link.
                    MessageView.html(
                        message, imageURL: { AttachmentController.sharedURL($0, token: token) }, isOwnersView: false)
                }.joined()
            ])
        response.headers[HTTPField.Name("X-Robots-Tag")!] = "noindex"
        return response
    }

    private func revoke(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.rowID()
        try await shares.revoke(shareID: id, userID: user.id)
        return request.isPlainForm ? .seeOther("/shares") : Response(status: .noContent)
    }

    private func revokeByToken(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let token = try Self.token(context)
        try await shares.revoke(token: token, userID: user.id)
        return request.isPlainForm ? .seeOther("/shares") : Response(status: .noContent)
    }

    /// A signed-in visitor gets their own copy; a signed-out one signs in first and comes back to the link.
    private func fork(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let token = try Self.token(context)
        guard let user = context.identity?.user else {
            guard request.isPlainForm else { throw AppError.unauthenticated }
            return .seeOther(LocalRedirect.login(returningTo: "/s/\(token)"))
        }
        let conversation = try await shares.fork(token: token, userID: user.id)
        return .seeOther("/c/\(conversation.id)")
    }

    /// The link to show the owner after creating it, if the token is really one of theirs.
    private func createdURL(_ token: String?, userID: UserID) async throws -> String? {
        guard let token else { return nil }
        do {
            _ = try await shares.ownedShare(token: token, userID: userID)
            return "/s/\(token)"
        } catch {
            if error == .notFound { return nil }
            throw error
        }
    }

    private func listValues(_ share: Share) -> [String: Any] {
        var values: [String: Any] = [
            "id": share.id, "title": share.title, "conversation_id": share.conversationID, "views": share.views,
            "created_at": share.createdAt.formatted(.iso8601), "snapshot_at": share.snapshotAt.formatted(.iso8601),
            "is_expired": !shares.isLive(share), "includes_reasoning": share.includesReasoning,
        ]
        values["author"] = share.authorName
        values["expires_at"] = share.expiresAt?.formatted(.iso8601)
        return values
    }

    /// The `{token}` path parameter.
    private static func token(_ context: AppRequestContext) throws -> String {
        guard let token = context.parameters.get("token"), !token.isEmpty else { throw AppError.notFound }
        return token
    }
}
