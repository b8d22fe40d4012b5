import Hummingbird
import ParleyCore

/// Pinning a conversation to the top of the list or archiving it out of the list, and undoing either: the forms, and
/// the JSON API's routes, which answer the conversation.
struct PinArchiveController {
    /// A change of a conversation's place in the list, named as in its route.
    enum Change: String, CaseIterable {
        case pin, unpin, archive, unarchive
    }

    let chat: ChatService

    /// Adds the routes: `POST /c/{id}/pin`, `/unpin`, `/archive` and `/unarchive`, and the same under
    /// `/api/conversations/{id}/`.
    func addRoutes(to router: Router<AppRequestContext>) {
        for change in Change.allCases {
            router.post(RouterPath("/c/{id}/" + change.rawValue)) { request, context in
                try await form(change, request, context)
            }
            router.post(RouterPath("/api/conversations/{id}/" + change.rawValue)) { _, context in
                let user = try context.requireUser()
                let id = try context.rowID()
                try await apply(change, userID: user.id, conversationID: id)
                return try Response.json(ConversationJSON(try await chat.conversation(id, userID: user.id)))
            }
        }
    }

    /// A change's form: the local page to go back to.
    struct ReturnForm: Decodable {
        var back: String?
    }

    /// Applies the change of a form; it goes back to the local page named in its `back` field, else to the
    /// conversation (a script gets 204).
    private func form(_ change: Change, _ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.rowID()
        let form = try await request.decode(as: ReturnForm.self, context: context)
        try await apply(change, userID: user.id, conversationID: id)
        guard request.isPlainForm else { return Response(status: .noContent) }
        return .seeOther(LocalRedirect.path(form.back) ?? "/c/\(id)")
    }

    /// Pins, unpins, archives or unarchives the user's conversation (404 when it is not theirs).
    private func apply(_ change: Change, userID: UserID, conversationID: ConversationID) async throws {
        switch change {
        case .pin, .unpin:
            try await chat.setPinned(change == .pin, userID: userID, conversationID: conversationID)
        case .archive, .unarchive:
            try await chat.setArchived(change == .archive, userID: userID, conversationID: conversationID)
        }
    }
}
