import HTTPTypes
import Hummingbird
import ParleyCore
import ParleyDocuments

/// Sending, stopping and regenerating replies, and the conversation's event stream, for the browser.
struct ReplyController {
    let settings: ServerSettings
    let chat: ChatService
    let eventStreams: EventStreamLimit
    let documents: DocumentUploads

    /// Adds the routes.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.post("/c/{id}/messages") { request, context in try await send(request, context) }
        router.post("/c/{id}/stop") { request, context in try await stop(request, context) }
        router.post("/c/{id}/regenerate") { request, context in try await regenerate(request, context) }
        router.post("/c/{id}/current") { request, context in try await selectBranch(request, context) }
        router.get("/c/{id}/events") { request, context in try await events(request, context) }
    }

    private func send(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.rowID()
        let message = try await MessageForm.read(request, context: context, limits: settings.uploadLimits)
        let result = try await documents.sending(
            files: message.documentFiles, ids: message.documentIDs, conversationID: id, userID: user.id
        ) { documentIDs in
            try await chat.send(
                userID: user.id, conversationID: id, content: message.content,
                images: message.images, documents: documentIDs, model: message.model,
                requestID: message.requestID, editOf: message.editOf, receivedAt: context.receivedAt)
        }
        return try accepted(result, request: request)
    }

    private func regenerate(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.rowID()
        let form = try await request.decode(as: MessageForm.Fields.self, context: context)
        let result = try await chat.regenerate(
            userID: user.id, conversationID: id, messageID: form.messageID, model: form.model,
            receivedAt: context.receivedAt)
        return try accepted(result, request: request)
    }

    /// Shows the branch through the form's `message_id`: back to the conversation at that message for a form, 204 for
    /// a script.
    private func selectBranch(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.rowID()
        _ = try await chat.conversation(id, userID: user.id)
        let form = try await request.decode(as: MessageForm.Fields.self, context: context)
        guard let messageID = form.messageID else { throw AppError.malformed("Say which message to show.") }
        try await chat.selectBranch(userID: user.id, conversationID: id, messageID: messageID)
        return request.isPlainForm ? .seeOther("/c/\(id)#m\(messageID)") : Response(status: .noContent)
    }

    private func stop(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.rowID()
        try await chat.stop(userID: user.id, conversationID: id)
        return request.isPlainForm ? .seeOther("/c/\(id)") : Response(status: .noContent)
    }

    private func events(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.rowID()
        _ = try await chat.conversation(id, userID: user.id)
        let lastEventID =
            (request.headers[HTTPField.Name("Last-Event-ID")!]
            ?? request.uri.queryParameters["last_event_id"].map(String.init))
            .flatMap(EventID.init)
        guard eventStreams.acquire(user.id) else {
            let message =
                "You have \(eventStreams.maximum) conversations open with live updates; "
                + "close some tabs and reload."
            throw AppError.tooManyRequests(code: "too_many_streams", message: message, wait: 5)
        }
        let subscription = await chat.generations.subscribe(
            conversationID: id, userID: user.id,
            lastEventID: lastEventID)
        return EventStreamResponse.make(subscription, endAfterDoneOf: nil) { [limit = eventStreams] in
            limit.release(user.id)
        }
    }

    /// 303 back to the conversation for a form; 202 with the new ids for a script.
    private func accepted(_ result: SendResult, request: Request) throws -> Response {
        if request.isPlainForm { return .seeOther("/c/\(result.conversationID)") }
        return try .json(SendAccepted(result), status: .accepted)
    }
}

/// The 202 body of a send: the messages it created and where to follow the reply.
struct SendAccepted: Encodable {
    var messageId: MessageID?
    var assistantMessageId: MessageID
    var eventsUrl: String
    var repeated: Bool

    init(_ result: SendResult) {
        messageId = result.userMessageID
        assistantMessageId = result.assistantMessageID
        eventsUrl = "/c/\(result.conversationID)/events"
        repeated = result.isRepeat
    }
}
