import Foundation
import Hummingbird
import ParleyCore

/// The prompt library in the JSON API: list (`?q=` matches commands and titles), create, read, change (`PATCH`: the
/// fields given), delete, duplicate, and use (the text filled in, optionally as a new conversation's first message).
struct PromptsAPIController {
    let prompts: PromptService
    let chat: ChatService

    /// A prompt as the API shows it; `can_change` says whether the caller may change it.
    struct PromptJSON: Encodable {
        var id: PromptID
        var title: String
        var command: String
        var body: String
        var variables: [String]
        var visibility: String
        var groupIds: [GroupID]
        var mine: Bool
        var canChange: Bool
        var createdAt: Date
        var updatedAt: Date

        /// The prompt as `user` sees it.
        init(_ prompt: Prompt, for user: User) {
            id = prompt.id
            title = prompt.title
            command = prompt.command
            body = prompt.body
            variables = prompt.variables
            visibility = prompt.visibility.rawValue
            groupIds = prompt.groupIDs
            mine = prompt.authorID == user.id
            canChange = PromptService.canChange(prompt, user)
            createdAt = prompt.createdAt
            updatedAt = prompt.updatedAt
        }
    }

    /// The body of `POST` (a missing field is refused as empty) and `PATCH` (what is left out stays).
    struct PromptBody: Decodable {
        var title: String?
        var command: String?
        var body: String?
        var visibility: Visibility?
        var groupIds: [GroupID]?

        /// `draft` with the body's fields over it; a visibility other than groups clears the groups.
        func applied(to draft: PromptDraft) -> PromptDraft {
            var draft = draft
            if let title { draft.title = title }
            if let command { draft.command = command }
            if let body { draft.body = body }
            if let visibility {
                draft.visibility = visibility
                if visibility != .groups { draft.groupIDs = [] }
            }
            if let groupIds { draft.groupIDs = groupIds }
            return draft
        }
    }

    /// The body of a use: the variables' values by name and, with `conversation`, a new conversation (on `model`, or
    /// the default) whose first message is the filled text.
    struct UseBody: Decodable {
        var variables: [String: String]?
        var conversation: Bool?
        var model: String?
    }

    /// What a use answers: the filled text and, when asked, the conversation it started and its reply.
    struct UseJSON: Encodable {
        var text: String
        var conversation: ConversationJSON?
        var reply: SendAccepted?
    }

    /// Adds the routes.
    func addRoutes(to router: Router<AppRequestContext>) {
        let api = router.group("api")
        api.get("prompts") { request, context in
            let user = try context.requireUser()
            let limit = try Self.limit(request)
            let found = try await prompts.visible(
                to: user, matching: request.uri.queryParameters["q"].map(String.init) ?? "", limit: limit + 1)
            return try Response.json(
                ListJSON(data: found.prefix(limit).map { PromptJSON($0, for: user) }, hasMore: found.count > limit))
        }
        api.post("prompts") { request, context in
            let user = try context.requireUser()
            let body = try await request.decodeJSON(PromptBody.self, context: context)
            let made = try await prompts.create(
                body.applied(to: PromptDraft(title: "", command: "", body: "")), by: user)
            return try Response.json(PromptJSON(made, for: user), status: .created)
        }
        api.get("prompts/{id}") { _, context in
            let user = try context.requireUser()
            return try Response.json(PromptJSON(try await prompts.prompt(try context.rowID(), for: user), for: user))
        }
        api.patch("prompts/{id}") { request, context in
            let user = try context.requireUser()
            let id = try context.rowID()
            let body = try await request.decodeJSON(PromptBody.self, context: context)
            let current = try await prompts.prompt(id, for: user)
            let updated = try await prompts.update(id, with: body.applied(to: PromptDraft(current)), by: user)
            return try Response.json(PromptJSON(updated, for: user))
        }
        api.delete("prompts/{id}") { _, context in
            try await prompts.delete(try context.rowID(), by: try context.requireUser())
            return Response(status: .noContent)
        }
        api.post("prompts/{id}/duplicate") { _, context in
            let user = try context.requireUser()
            let copy = try await prompts.duplicate(try context.rowID(), by: user)
            return try Response.json(PromptJSON(copy, for: user), status: .created)
        }
        api.post("prompts/{id}/use") { request, context in try await use(request, context) }
    }

    /// Fills the prompt in; with `conversation`, starts a conversation with the text (201), else answers it (200).
    private func use(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.rowID()
        let body = try await request.decodeJSON(UseBody.self, context: context)
        let text = try await prompts.fill(id, with: body.variables ?? [:], for: user)
        guard body.conversation == true else { return try Response.json(UseJSON(text: text)) }
        let (conversation, sent) = try await chat.startConversation(
            userID: user.id, firstMessage: text, model: body.model, receivedAt: context.receivedAt)
        return try Response.json(
            UseJSON(text: text, conversation: ConversationJSON(conversation), reply: SendAccepted(sent)),
            status: .created)
    }

    /// `limit` from the query (1 to `PromptService.maxListed`, by default all of those); 400 when malformed.
    private static func limit(_ request: Request) throws(AppError) -> Int {
        guard let text = request.uri.queryParameters["limit"], !text.isEmpty else { return PromptService.maxListed }
        guard let limit = Int(text), (1...PromptService.maxListed).contains(limit) else {
            throw AppError.malformed("limit must be between 1 and \(PromptService.maxListed).")
        }
        return limit
    }
}
