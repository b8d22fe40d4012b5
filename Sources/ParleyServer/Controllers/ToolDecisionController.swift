import Hummingbird
import ParleyCore

/// The user's answer to a tool call that waits for permission: `POST /c/{id}/tools/{call_id}` (form field `decision`,
/// `allow` or `deny`; back to the conversation, or 204 for a script) and `POST /api/conversations/{id}/tools/{call_id}`
/// (`{"allow": true|false}`, 204). 404 when no call of the conversation's running reply waits under that id.
struct ToolDecisionController {
    let chat: ChatService

    /// Adds the routes.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.post("/c/{id}/tools/{call_id}") { request, context in
            let call = try await waitingCall(context)
            let form = try await request.decode(as: DecisionForm.self, context: context)
            guard let allow = form.allow else { throw AppError.malformed("Say allow or deny.") }
            try await decide(call, allow: allow)
            return request.isPlainForm ? .seeOther("/c/\(call.conversationID)") : Response(status: .noContent)
        }
        router.post("/api/conversations/{id}/tools/{call_id}") { request, context in
            let call = try await waitingCall(context)
            try await decide(call, allow: try await request.decodeJSON(Decision.self, context: context).allow)
            return Response(status: .noContent)
        }
    }

    /// The call a request names: the signed-in user's conversation (404 otherwise, before the body is read) and the
    /// call's id.
    private func waitingCall(_ context: AppRequestContext) async throws -> (
        userID: UserID, conversationID: ConversationID, callID: String
    ) {
        let user = try context.requireUser()
        let id = try context.rowID()
        _ = try await chat.conversation(id, userID: user.id)
        guard let callID = context.parameters.get("call_id"), !callID.isEmpty, callID.count <= 200 else {
            throw AppError.notFound
        }
        return (user.id, id, callID)
    }

    /// Passes the answer to the waiting call.
    private func decide(_ call: (userID: UserID, conversationID: ConversationID, callID: String), allow: Bool)
        async throws
    {
        try await chat.decideToolCall(
            userID: call.userID, conversationID: call.conversationID, callID: call.callID, allow: allow)
    }

    /// The page's form: `decision=allow` or `decision=deny`.
    struct DecisionForm: Decodable {
        var decision: String?

        var allow: Bool? {
            switch decision {
            case "allow": true
            case "deny": false
            default: nil
            }
        }
    }

    /// The API's body.
    struct Decision: Decodable {
        var allow: Bool
    }
}
