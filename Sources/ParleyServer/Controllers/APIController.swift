import Hummingbird
import ParleyCore

/// The JSON API for scripts and other clients (Bearer tokens; cookies work too, with CSRF).
struct APIController {
    /// The default and largest page sizes.
    static let defaultLimit = 50
    static let maxLimit = 200
    let chat: ChatService
    let assistants: AssistantService
    let knowledge: KnowledgeService
    let toolServers: ToolServerChoices
    let pages: PageRenderer
    /// What a message's images may weigh, as on the page.
    let uploadLimits: UploadLimits
    let documents: DocumentUploads

    /// Adds the routes.
    func addRoutes(to router: Router<AppRequestContext>) {
        let api = router.group("api")
        api.get("conversations") { request, context in try await conversations(request, context) }
        api.post("conversations") { request, context in try await createConversation(request, context) }
        api.get("conversations/{id}") { _, context in try await conversation(context) }
        api.delete("conversations/{id}") { _, context in try await deleteConversation(context) }
        api.patch("conversations/{id}") { request, context in try await updateConversation(request, context) }
        api.get("conversations/{id}/messages") { request, context in try await messages(request, context) }
        api.post("conversations/{id}/messages") { request, context in try await send(request, context) }
        api.delete("conversations/{id}/messages/{message_id}") { _, context in try await deleteMessage(context) }
        api.post("conversations/{id}/regenerate") { request, context in try await regenerate(request, context) }
        api.put("conversations/{id}/current") { request, context in try await selectBranch(request, context) }
        api.post("conversations/{id}/stop") { _, context in try await stop(context) }
        api.get("models") { _, context in try await models(context) }
    }

    /// The body of `POST /api/conversations` (with `assistant_id`, a copy of that assistant's set-up), and of
    /// `PATCH /api/conversations/{id}` (which changes what it names; `collection_ids` are the knowledge collections
    /// it draws on, all of them).
    struct NewConversation: Decodable {
        var title: String?
        var model: String?
        var systemPrompt: String?
        var settings: GenerationOptions?
        var assistantId: AssistantID?
        var collectionIds: [CollectionID]?
        /// The MCP servers whose tools its replies may call.
        var toolServers: [String]?
    }

    /// The body of `POST /api/conversations/{id}/messages`; with `edit_of`, a new version of that question.
    struct NewMessage: Decodable {
        var content: String
        var model: String?
        var requestId: String?
        var editOf: MessageID?
        /// Documents uploaded to the conversation before, to send with the message.
        var documentIds: [DocumentID]?
    }

    /// The body of `POST /api/conversations/{id}/regenerate` (the current leaf's reply by default) and of
    /// `PUT /api/conversations/{id}/current` (which needs the message).
    struct MessageChoice: Decodable {
        var messageId: MessageID?
        var model: String?
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
        let collections = try await knowledge.owned(body.collectionIds ?? [], by: user.id)
        guard let assistantID = body.assistantId else {
            let conversation = try await chat.createConversation(
                userID: user.id, title: body.title, model: body.model, systemPrompt: body.systemPrompt,
                options: body.settings ?? GenerationOptions())
            try await knowledge.attach(collections, toConversation: conversation.id, userID: user.id)
            return try .json(ConversationJSON(conversation), status: .created)
        }
        guard body.model == nil, body.systemPrompt == nil, body.settings == nil else {
            throw AppError(
                .unprocessableContent, code: "invalid_assistant",
                message: "A conversation with an assistant takes its model, instructions and settings: "
                    + "change them once it is made.")
        }
        var conversation = try await assistants.startConversation(with: assistantID, by: user)
        try await knowledge.attach(collections, toConversation: conversation.id, userID: user.id)
        if let title = body.title {
            try await chat.rename(userID: user.id, conversationID: conversation.id, title: title)
            conversation = try await chat.conversation(conversation.id, userID: user.id)
        }
        return try .json(ConversationJSON(conversation), status: .created)
    }

    /// Changes what the body names: the title, the model, system prompt and generation settings, and the knowledge
    /// collections (each kept when left out); answers the conversation.
    private func updateConversation(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.rowID()
        let body = try await request.decodeJSON(NewConversation.self, context: context)
        let current = try await chat.conversation(id, userID: user.id)
        var collections: [CollectionID]?
        if let ids = body.collectionIds { collections = try await knowledge.owned(ids, by: user.id) }
        var servers: [String]?
        if let ids = body.toolServers { servers = try await toolServers.checked(ids) }
        if body.model != nil || body.systemPrompt != nil || body.settings != nil {
            try await chat.configure(
                userID: user.id, conversationID: id, model: body.model,
                systemPrompt: body.systemPrompt ?? current.systemPrompt, options: body.settings ?? current.options)
        }
        if let title = body.title { try await chat.rename(userID: user.id, conversationID: id, title: title) }
        if let collections { try await knowledge.attach(collections, toConversation: id, userID: user.id) }
        if let servers { try await chat.setToolServers(servers, userID: user.id, conversationID: id) }
        return try .json(ConversationJSON(try await chat.conversation(id, userID: user.id)))
    }

    private func conversation(_ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        return try .json(ConversationJSON(try await chat.conversation(try context.rowID(), userID: user.id)))
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
        let branch: BranchSelection
        switch request.uri.queryParameters["branch"] {
        case nil, "current": branch = .current
        case "all": branch = .all
        default: throw AppError.malformed("branch must be current or all.")
        }
        let page = try await chat.messages(
            conversationID: id, userID: user.id, branch: branch, afterID: after, limit: limit)
        return try .json(ListJSON(data: page.items.map(MessageJSON.init), hasMore: page.hasMore))
    }

    private func deleteMessage(_ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        try await chat.deleteMessage(
            userID: user.id, conversationID: try context.rowID(), messageID: try context.rowID("message_id"))
        return Response(status: .noContent)
    }

    private func regenerate(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.rowID()
        let body = try await request.decodeJSON(MessageChoice.self, context: context)
        let result = try await chat.regenerate(
            userID: user.id, conversationID: id, messageID: body.messageId, model: body.model,
            receivedAt: context.receivedAt)
        return try await answer(result, request: request, userID: user.id)
    }

    private func selectBranch(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.rowID()
        _ = try await chat.conversation(id, userID: user.id)
        let body = try await request.decodeJSON(MessageChoice.self, context: context)
        guard let messageID = body.messageId else { throw AppError.malformed("Say which message to show.") }
        try await chat.selectBranch(userID: user.id, conversationID: id, messageID: messageID)
        return try .json(ConversationJSON(try await chat.conversation(id, userID: user.id)))
    }

    /// Sends a message: JSON, or `multipart/form-data` with images (the page's fields, checks and limits).
    private func send(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.rowID()
        let message: MessageForm
        if request.multipartBoundary != nil {
            message = try await MessageForm.read(request, context: context, limits: uploadLimits)
        } else {
            let body = try await request.decodeJSON(NewMessage.self, context: context)
            message = MessageForm(
                content: body.content, model: body.model, requestID: body.requestId, editOf: body.editOf, images: [],
                documentIDs: body.documentIds ?? [])
        }
        let result = try await documents.sending(
            files: message.documentFiles, ids: message.documentIDs, conversationID: id, userID: user.id
        ) { documentIDs in
            try await chat.send(
                userID: user.id, conversationID: id, content: message.content, images: message.images,
                documents: documentIDs, model: message.model, requestID: message.requestID, editOf: message.editOf,
                receivedAt: context.receivedAt)
        }
        return try await answer(result, request: request, userID: user.id)
    }

    /// A started reply: 202 with its ids, or its events when the client asks for `text/event-stream`.
    private func answer(_ result: SendResult, request: Request, userID: UserID) async throws -> Response {
        guard request.headers[.accept]?.contains("text/event-stream") == true else {
            return try .json(SendAccepted(result), status: .accepted)
        }
        let subscription = await chat.generations.subscribe(
            conversationID: result.conversationID, userID: userID,
            lastEventID: EventID(messageID: result.assistantMessageID, sequence: 0))
        return EventStreamResponse.make(subscription, endAfterDoneOf: result.assistantMessageID)
    }

    private func stop(_ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.rowID()
        try await chat.stop(userID: user.id, conversationID: id)
        return Response(status: .noContent)
    }

    private func models(_ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        struct ModelJSON: Encodable { var id: String; var contextWindow: Int; var vision: Bool }
        return try .json(
            ListJSON(
                data: try await chat.models(for: user.id).map {
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
