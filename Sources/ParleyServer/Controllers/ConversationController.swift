import Foundation
import Hummingbird
import ParleyCore

/// The browser's conversation pages: the list, one conversation, and the forms that change them.
struct ConversationController {
    /// Conversations shown per page of the list.
    static let pageSize = 50
    let settings: ServerSettings
    let chat: ChatService
    let assistants: AssistantService
    let knowledge: KnowledgeService
    let toolServers: ToolServerChoices
    let pages: PageRenderer

    /// Adds the routes.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/") { _, context in Response.seeOther(context.identity == nil ? "/login" : "/c") }
        router.get("/c") { request, context in try await list(request, context) }
        router.post("/c") { request, context in try await create(request, context) }
        router.get("/c/{id}") { request, context in try await show(request, context) }
        router.post("/c/{id}/rename") { request, context in try await rename(request, context) }
        router.post("/c/{id}/settings") { request, context in try await configure(request, context) }
        router.post("/c/{id}/delete") { _, context in try await delete(context) }
        router.post("/c/{id}/delete-message") { request, context in try await deleteMessage(request, context) }
    }

    private func list(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let before = try request.uri.queryParameters["before"].map { value throws(AppError) -> ConversationID in
            guard let id = ConversationID(value), id > 0 else { throw AppError.malformed("The cursor is not valid.") }
            return id
        }
        let archived = request.uri.queryParameters["archived"] == "1"
        let choices = try await assistants.visible(to: user).map { ["id": $0.id, "name": $0.name] as [String: Any] }
        let page = try await chat.conversations(
            userID: user.id, before: before, limit: Self.pageSize,
            archived: archived)
        var values: [String: Any] = [
            "sections": ConversationGroups.sections(
                page.items, now: Date(), timeZone: ConversationGroups.timeZone(of: request), row: Self.listValues),
            "archived_view": archived,
            "back": archived ? "/c?archived=1" : "/c",
            "models": try await modelOptions(selected: chat.catalog.defaultModel?.id, userID: user.id),
            "assistant_choices": choices, "has_assistants": !choices.isEmpty,
            "request_id": UUID().uuidString,
        ]
        if page.hasMore, let last = page.items.last { values["next_cursor"] = String(last.id) }
        return pages.page(
            "conversations", title: archived ? "Archived conversations" : "Conversations",
            context: context, values: values)
    }

    /// The forms of a conversation: a new one (with its first message), its title, and its settings (with the
    /// generation options as text fields, empty when not set, and, when `collections_listed` says the form listed
    /// them, the knowledge collections ticked as `collection[]`).
    struct ConversationForm: Decodable {
        var title: String?
        var model: String?
        var systemPrompt: String?
        var content: String?
        var requestID: String?
        /// The assistant a new conversation starts with (its model and instructions then win over the form's).
        var assistant: AssistantID?
        var options: GenerationOptionsFields
        var collections: [CollectionID]?
        var collectionsListed: FormFlag?
        /// The MCP servers ticked (`tool_server[]`), read when `tool_servers_listed` says the form listed them.
        var toolServers: [String]?
        var toolServersListed: FormFlag?

        enum CodingKeys: String, CodingKey {
            case title, model, content, assistant
            case systemPrompt = "system_prompt"
            case requestID = "request_id"
            case collections = "collection"
            case collectionsListed = "collections_listed"
            case toolServers = "tool_server"
            case toolServersListed = "tool_servers_listed"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            title = try container.decodeIfPresent(String.self, forKey: .title)
            model = try container.decodeIfPresent(String.self, forKey: .model)
            systemPrompt = try container.decodeIfPresent(String.self, forKey: .systemPrompt)
            content = try container.decodeIfPresent(String.self, forKey: .content)
            requestID = try container.decodeIfPresent(String.self, forKey: .requestID)
            let assistantText = try container.decodeIfPresent(String.self, forKey: .assistant) ?? ""
            guard assistantText.isEmpty || AssistantID(assistantText) != nil else {
                throw AppError.malformed("assistant must be an assistant's id.")
            }
            assistant = AssistantID(assistantText)
            options = try GenerationOptionsFields(from: decoder)
            collections = try container.decodeIfPresent([CollectionID].self, forKey: .collections)
            collectionsListed = try container.decodeIfPresent(FormFlag.self, forKey: .collectionsListed)
            toolServers = try container.decodeIfPresent([String].self, forKey: .toolServers)
            toolServersListed = try container.decodeIfPresent(FormFlag.self, forKey: .toolServersListed)
        }
    }

    private func create(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let form = try await request.decode(as: ConversationForm.self, context: context)
        let content = form.content ?? ""
        let conversation =
            if let assistant = form.assistant {
                try await assistants.startConversation(with: assistant, by: user)
            } else {
                try await chat.createConversation(
                    userID: user.id, title: nil, model: form.model, systemPrompt: form.systemPrompt)
            }
        if !content.allSatisfy(\.isWhitespace) {
            _ = try await chat.send(
                userID: user.id, conversationID: conversation.id, content: content,
                model: nil, requestID: form.requestID, receivedAt: context.receivedAt)
        }
        return .seeOther("/c/\(conversation.id)")
    }

    /// What the Continue button sends after a reply cut at the model's output limit.
    static let continuePrompt = "Continue exactly where you stopped."

    /// The conversation's current branch; with `?at=` a message of another branch (a search hit's link), that branch,
    /// made current; with `?edit=` one of its questions, the form that writes a new version of it; with `deleting`,
    /// the confirmation that deletes that message and what follows it.
    private func show(_ request: Request, _ context: AppRequestContext, deleting: MessageID? = nil) async throws
        -> Response
    {
        let user = try context.requireUser()
        let id = try context.rowID()
        let conversation = try await chat.conversation(id, userID: user.id)
        var messages = try await chat.messages(conversationID: id, userID: user.id, afterID: nil, limit: Int.max).items
        if let at = request.uri.queryParameters["at"].flatMap({ MessageID($0) }),
            !messages.contains(where: { $0.id == at }),
            (try? await chat.selectBranch(userID: user.id, conversationID: id, messageID: at)) != nil
        {
            messages = try await chat.messages(conversationID: id, userID: user.id, afterID: nil, limit: Int.max).items
        }
        let streaming = messages.last { $0.status == .streaming }
        // A reply may be running in another branch: Stop still stops it, and the page leaves its events alone.
        let runningElsewhere = chat.generations.runningReply(conversationID: id).filter { running in
            !messages.contains { $0.id == running }
        }
        let editing = request.uri.queryParameters["edit"].flatMap { MessageID($0) }.flatMap { id in
            messages.first { $0.id == id && $0.role == .user }
        }
        let confirming = deleting.flatMap { id in messages.first { $0.id == id } }
        let sidebar = try await chat.conversations(userID: user.id, before: nil, limit: Self.pageSize).items
        let budget = try await chat.budgetStatus(userID: user.id)
        let starters = messages.isEmpty ? try await starters(of: conversation, user: user) : []
        let attached = try await knowledge.collectionIDs(ofConversation: id, userID: user.id)
        let toolChoices = await toolServers.choices(chosen: conversation.toolServers)
        return pages.page(
            "conversation", title: conversation.title, context: context,
            values: [
                "budget_warning": BudgetNotice.warning(budget).map { [$0] } ?? [],
                "conversation": [
                    "id": conversation.id, "title": conversation.title, "model": conversation.model,
                    "system_prompt": conversation.systemPrompt, "pinned": conversation.pinned,
                    "archived": conversation.archived,
                    "assistant": conversation.assistant.map { [["name": $0.name, "version": $0.version]] } ?? [],
                    "generation": GenerationOptionsFields.values(
                        conversation.options, model: chat.catalog.model(conversation.model)),
                ] as [String: Any],
                "back": "/c/\(id)",
                "is_streaming": streaming != nil || runningElsewhere != nil,
                "running_elsewhere": runningElsewhere.map(String.init) ?? "",
                "resume_event_id": streaming.map { EventID(messageID: $0.id, sequence: 0).text } ?? "",
                "has_messages": !messages.isEmpty,
                "starters": starters, "has_starters": !starters.isEmpty,
                "has_reasoning": messages.contains { $0.reasoning != nil },
                "can_continue": messages.last?.status == .truncated,
                "continue_prompt": Self.continuePrompt,
                "models": try await modelOptions(selected: conversation.model, userID: user.id),
                "collection_choices": try await knowledge.choices(of: user.id, checked: attached),
                "tool_choices": toolChoices, "has_tool_choices": !toolChoices.isEmpty,
                "upload": settings.uploadLimits.templateValues,
                "sections": ConversationGroups.sections(
                    sidebar, now: Date(), timeZone: ConversationGroups.timeZone(of: request)
                ) { Self.listValues($0, current: id) },
                "request_id": UUID().uuidString,
                "editing": editing.map { [["message_id": $0.id, "content": $0.content] as [String: Any]] } ?? [],
                "deleting": confirming.map {
                    [["message_id": $0.id, "is_question": $0.role == .user] as [String: Any]]
                }
                    ?? [],
            ], fragments: ["messages_html": messages.map(pages.messages.html).joined()])
    }

    /// Deletes a message and what follows it once confirmed (`confirm=1`); without the confirmation, shows the page
    /// asking for it.
    private func deleteMessage(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.rowID()
        _ = try await chat.conversation(id, userID: user.id)
        let form = try await request.decode(as: DeleteMessageForm.self, context: context)
        guard let messageID = form.messageID else { throw AppError.malformed("Say which message to delete.") }
        guard form.confirm.isOn else { return try await show(request, context, deleting: messageID) }
        try await chat.deleteMessage(userID: user.id, conversationID: id, messageID: messageID)
        return request.isPlainForm ? .seeOther("/c/\(id)") : Response(status: .noContent)
    }

    /// The form that deletes a message: which one, and whether the user confirmed it.
    struct DeleteMessageForm: Decodable {
        var messageID: MessageID?
        var confirm: FormFlag?

        enum CodingKeys: String, CodingKey {
            case confirm
            case messageID = "message_id"
        }
    }

    private func rename(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.rowID()
        let form = try await request.decode(as: ConversationForm.self, context: context)
        try await chat.rename(userID: user.id, conversationID: id, title: form.title ?? "")
        return request.isPlainForm ? .seeOther("/c/\(id)") : Response(status: .noContent)
    }

    private func configure(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.rowID()
        let form = try await request.decode(as: ConversationForm.self, context: context)
        let collections = try await knowledge.owned(form.collections ?? [], by: user.id)
        let servers = form.toolServersListed.isOn ? try await toolServers.checked(form.toolServers ?? []) : nil
        try await chat.configure(
            userID: user.id, conversationID: id, model: form.model,
            systemPrompt: form.systemPrompt ?? "", options: try form.options.options())
        if form.collectionsListed.isOn {
            try await knowledge.attach(collections, toConversation: id, userID: user.id)
        }
        if let servers { try await chat.setToolServers(servers, userID: user.id, conversationID: id) }
        return request.isPlainForm ? .seeOther("/c/\(id)") : Response(status: .noContent)
    }

    private func delete(_ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.rowID()
        try await chat.delete(userID: user.id, conversationID: id)
        pages.messages.forget(conversation: id)
        return .seeOther("/c")
    }

    /// The models the user may choose, `selected` marked.
    private func modelOptions(selected: String?, userID: UserID) async throws -> [[String: Any]] {
        try await chat.models(for: userID).map { model in
            ["id": model.id, "name": model.displayName, "selected": model.id == selected, "vision": model.vision]
        }
    }

    private static func listValues(_ conversation: Conversation) -> [String: Any] {
        listValues(conversation, current: nil)
    }

    private static func listValues(_ conversation: Conversation, current: ConversationID?) -> [String: Any] {
        [
            "id": conversation.id, "title": conversation.title, "model": conversation.model,
            "updated_at": conversation.updatedAt.formatted(.iso8601), "current": conversation.id == current,
            "pinned": conversation.pinned, "archived": conversation.archived,
            "assistant": conversation.assistant.map { [["name": $0.name]] } ?? [],
        ]
    }

    /// The conversation starters of the assistant an empty conversation was started with, while the user may still
    /// use it (none otherwise).
    private func starters(of conversation: Conversation, user: User) async throws -> [String] {
        guard let id = conversation.assistant?.id else { return [] }
        do {
            return try await assistants.assistant(id, for: user).starters
        } catch .notFound {
            return []
        }
    }
}
