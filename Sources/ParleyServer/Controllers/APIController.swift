import Hummingbird
import ParleyCore

/// The JSON API for scripts and other clients (Bearer tokens; cookies work too, with CSRF).
struct APIController {
    /// The default and largest page sizes.
    static let defaultLimit = 50
    static let maxLimit = 200
    let chat: ChatService
    let pages: PageRenderer

    /// Adds the routes.
    func addRoutes(to router: Router<AppRequestContext>) {
        let api = router.group("api")
        api.get("conversations") { request, context in try await conversations(request, context) }
        api.post("conversations") { request, context in try await createConversation(request, context) }
        api.delete("conversations/{id}") { _, context in try await deleteConversation(context) }
        api.get("conversations/{id}/messages") { request, context in try await messages(request, context) }
        api.post("conversations/{id}/messages") { request, context in try await send(request, context) }
        api.post("conversations/{id}/stop") { _, context in try await stop(context) }
        api.get("models") { _, context in try models(context) }
    }

    /// The body of `POST /api/conversations`.
    struct NewConversation: Decodable {
        var title: String?
        var model: String?
        var systemPrompt: String?
    }

    /// The body of `POST /api/conversations/{id}/messages`.
    struct NewMessage: Decodable {
        var content: String
        var model: String?
        var requestId: String?
    }

    private func conversations(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let (after, limit) = try Self.cursor(request)
        let archived = request.uri.queryParameters["archived"] == "1"
        let page = try await chat.conversations(
            userID: user.id, before: after, limit: limit,
            archived: archived)
        return try .json(ListJSON(data: page.items.map(ConversationJSON.init), hasMore: page.hasMore))
    }

    private func createConversation(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let body = try await request.decodeJSON(NewConversation.self, context: context)
        let conversation = try await chat.createConversation(
            userID: user.id, title: body.title, model: body.model, systemPrompt: body.systemPrompt)
        return try .json(ConversationJSON(conversation), status: .created)
    }

    private func deleteConversation(_ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.rowID()
        try await chat.delete(userID: user.id, conversationID: id)
        pages.messages.forget(conversation: id)
        return Response(status: .noContent)
    }

    private func messages(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.rowID()
        let (after, limit) = try Self.cursor(request)
        let page = try await chat.messages(conversationID: id, userID: user.id, afterID: after, limit: limit)
        return try .json(ListJSON(data: page.items.map(MessageJSON.init), hasMore: page.hasMore))
    }

    private func send(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.rowID()
        let body = try await request.decodeJSON(NewMessage.self, context: context)
        let result = try await chat.send(
            userID: user.id, conversationID: id, content: body.content,
            model: body.model, requestID: body.requestId,
            receivedAt: context.receivedAt)
        guard request.headers[.accept]?.contains("text/event-stream") == true else {
            return try .json(SendAccepted(result), status: .accepted)
        }
        let subscription = await chat.generations.subscribe(
            conversationID: id, userID: user.id, lastEventID: EventID(messageID: result.assistantMessageID, sequence: 0)
        )
        return EventStreamResponse.make(subscription, endAfterDoneOf: result.assistantMessageID)
    }

    private func stop(_ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.rowID()
        try await chat.stop(userID: user.id, conversationID: id)
        return Response(status: .noContent)
    }

    private func models(_ context: AppRequestContext) throws -> Response {
        _ = try context.requireUser()
        struct ModelJSON: Encodable { var id: String; var contextWindow: Int; var vision: Bool }
        return try .json(
            ListJSON(
                data: chat.catalog.models.map {
                    ModelJSON(id: $0.id, contextWindow: $0.contextWindow, vision: $0.vision)
                }, hasMore: false))
    }

    /// `after_id` and `limit` from the query; 400 when malformed.
    static func cursor(_ request: Request) throws -> (after: Int64?, limit: Int) {
        let query = request.uri.queryParameters
        var after: Int64?
        if let text = query["after_id"], !text.isEmpty {
            guard let value = Int64(text), value > 0 else {
                throw AppError.malformed("after_id must be a positive id.")
            }
            after = value
        }
        var limit = defaultLimit
        if let text = query["limit"], !text.isEmpty {
            guard let value = Int(text), (1...maxLimit).contains(value) else {
                throw AppError.malformed("limit must be between 1 and \(maxLimit).")
            }
            limit = value
        }
        return (after, limit)
    }
}
