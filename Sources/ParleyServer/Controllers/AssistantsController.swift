import Foundation
import Hummingbird
import ParleyCore

/// The assistants pages: the list of those one may use (start a conversation, duplicate; edit and delete one's own),
/// and the form that makes or changes one (with the author's knowledge collections to attach). Plain forms, without
/// script.
struct AssistantsController {
    let assistants: AssistantService
    let chat: ChatService
    let knowledge: KnowledgeService
    let groups: any GroupStore
    let pages: PageRenderer

    /// Adds the routes.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/assistants") { _, context in try await list(context) }
        router.get("/assistants/new") { _, context in
            try await form(
                context, draft: AssistantDraft(name: ""), action: "/assistants",
                collections: (try context.requireUser().id, []))
        }
        router.post("/assistants") { request, context in
            let user = try context.requireUser()
            let form = try await request.decode(as: AssistantForm.self, context: context)
            return try await saving(context, form: form, action: "/assistants", author: user.id) {
                draft throws(ChatError) in try await assistants.create(draft, by: user)
            }
        }
        router.get("/assistants/{id}/edit") { _, context in
            let user = try context.requireUser()
            let id = try context.rowID()
            let assistant = try await assistants.assistant(id, for: user)
            guard AssistantService.canChange(assistant, user) else { throw AppError(ChatError.readOnly) }
            return try await form(
                context, draft: AssistantDraft(assistant), action: "/assistants/\(id)",
                collections: (assistant.authorID, try await knowledge.collectionIDs(ofAssistant: id)),
                icon: ["id": id, "has_image": assistant.hasIconImage, "max_kb": AssistantService.maxIconBytes / 1024])
        }
        router.post("/assistants/{id}") { request, context in
            let user = try context.requireUser()
            let id = try context.rowID()
            let form = try await request.decode(as: AssistantForm.self, context: context)
            let author = try await assistants.assistant(id, for: user).authorID
            return try await saving(context, form: form, action: "/assistants/\(id)", author: author) {
                draft throws(ChatError) in try await assistants.update(id, with: draft, by: user)
            }
        }
        router.post("/assistants/{id}/delete") { _, context in
            try await assistants.delete(try context.rowID(), by: try context.requireUser())
            return Response.seeOther("/assistants")
        }
        router.post("/assistants/{id}/duplicate") { _, context in
            let copy = try await assistants.duplicate(try context.rowID(), by: try context.requireUser())
            return Response.seeOther("/assistants/\(copy.id)/edit")
        }
        router.post("/assistants/{id}/start") { _, context in
            let conversation = try await assistants.startConversation(
                with: try context.rowID(), by: try context.requireUser())
            return Response.seeOther("/c/\(conversation.id)")
        }
    }

    private func list(_ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let rows = try await assistants.visible(to: user).map { assistant -> [String: Any] in
            [
                "id": assistant.id, "name": assistant.name, "description": assistant.description,
                "icon": assistant.icon, "model": assistant.model, "version": assistant.version,
                "has_icon_image": assistant.hasIconImage,
                "mine": assistant.authorID == user.id, "can_change": AssistantService.canChange(assistant, user),
                "shared": assistant.visibility != .private,
            ]
        }
        return pages.page("assistants", title: "Assistants", context: context, values: ["assistants": rows])
    }

    /// Saves the form with `save`, then attaches the collections ticked (which must be `author`'s, checked first):
    /// back to the list when it worked, else the form again with the problem (422).
    private func saving(
        _ context: AppRequestContext, form: AssistantForm, action: String, author: UserID,
        _ save: (AssistantDraft) async throws(ChatError) -> Assistant
    ) async throws -> Response {
        do {
            let draft = try form.draft()
            let collections = try await knowledge.owned(form.collections ?? [], by: author)
            let saved = try await save(draft)
            if form.collectionsListed.isOn {
                try await knowledge.attach(collections, toAssistant: saved.id, authorID: saved.authorID)
            }
        } catch {
            let problem = AppError(mapping: error) ?? AppError.internalError
            guard problem.status == .unprocessableContent else { throw error }
            let shown = (try? form.draft()) ?? AssistantDraft(name: form.name ?? "")
            return try await self.form(
                context, draft: shown, action: action, collections: (author, form.collections ?? []),
                error: problem.message)
        }
        return .seeOther("/assistants")
    }

    /// The assistant form, listing the collections of `collections.author` with those in `collections.ticked`
    /// ticked; `icon` (an existing assistant's) adds the icon upload form.
    private func form(
        _ context: AppRequestContext, draft: AssistantDraft, action: String,
        collections: (author: UserID, ticked: [CollectionID]), error: String? = nil, icon: [String: Any]? = nil
    ) async throws -> Response {
        let user = try context.requireUser()
        let models = try await chat.models(for: user.id).filter { !$0.generatesImages }.map { model in
            ["id": model.id, "name": model.displayName, "selected": model.id == draft.model] as [String: Any]
        }
        let groupRows = try await groups.groups().map { group in
            ["id": group.id, "name": group.name, "checked": draft.groupIDs.contains(group.id)] as [String: Any]
        }
        let starters = (0..<AssistantDraft.maxStarters).map { index in
            ["number": index + 1, "text": index < draft.starters.count ? draft.starters[index] : ""] as [String: Any]
        }
        let values: [String: Any] = [
            "action": action, "is_new": action == "/assistants", "name": draft.name,
            "description": draft.description, "icon": draft.icon, "instructions": draft.instructions,
            "model_choices": models, "starters": starters, "group_choices": groupRows,
            "has_groups": !groupRows.isEmpty,
            "visibility_private": draft.visibility == .private, "visibility_everyone": draft.visibility == .everyone,
            "visibility_groups": draft.visibility == .groups,
            "generation": GenerationOptionsFields.values(draft.options, model: draft.model.flatMap(chat.catalog.model)),
            "collection_choices": try await knowledge.choices(of: collections.author, checked: collections.ticked),
            "error": error ?? "",
            "icon_upload": icon.map { [$0] } ?? [],
        ]
        return pages.page(
            "assistant_form", title: action == "/assistants" ? "New assistant" : "Edit assistant", context: context,
            values: values, status: error == nil ? .ok : .unprocessableContent)
    }
}
