import Hummingbird
import ParleyCore

/// The forms that pin a conversation to the top of the list or archive it out of the list, and undo either.
struct PinArchiveController {
    /// A change of a conversation's place in the list, named as in its route.
    enum Change: String, CaseIterable {
        case pin, unpin, archive, unarchive
    }

    let chat: ChatService

    /// Adds the routes: `POST /c/{id}/pin`, `/unpin`, `/archive` and `/unarchive`.
    func addRoutes(to router: Router<AppRequestContext>) {
        for change in Change.allCases {
            router.post(RouterPath("/c/{id}/" + change.rawValue)) { request, context in
                try await apply(change, request, context)
            }
        }
    }

    /// A change's form: the local page to go back to.
    struct ReturnForm: Decodable {
        var back: String?
    }

    /// Applies the change; a form goes back to the local page named in its `back` field, else to the conversation.
    private func apply(_ change: Change, _ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.rowID()
        let form = try await request.decode(as: ReturnForm.self, context: context)
        switch change {
        case .pin, .unpin:
            try await chat.setPinned(change == .pin, userID: user.id, conversationID: id)
        case .archive, .unarchive:
            try await chat.setArchived(change == .archive, userID: user.id, conversationID: id)
        }
        guard request.isPlainForm else { return Response(status: .noContent) }
        return .seeOther(LocalRedirect.path(form.back) ?? "/c/\(id)")
    }
}
