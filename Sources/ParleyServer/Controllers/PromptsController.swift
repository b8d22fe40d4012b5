import Foundation
import Hummingbird
import ParleyCore

/// The prompt library's pages: the list of prompts one may use (use, duplicate; edit and delete one's own), the form
/// that makes or changes one, and the form that fills a prompt's variables in and starts a conversation with it.
/// Plain forms, without script.
struct PromptsController {
    let prompts: PromptService
    let chat: ChatService
    let groups: any GroupStore
    let pages: PageRenderer

    /// Adds the routes.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/prompts") { request, context in try await list(request, context) }
        router.get("/prompts/new") { _, context in
            try await form(context, draft: PromptDraft(title: "", command: "", body: ""), action: "/prompts")
        }
        router.post("/prompts") { request, context in
            let user = try context.requireUser()
            let form = try await request.decode(as: PromptForm.self, context: context)
            return try await saving(context, form: form, action: "/prompts") { draft throws(PromptError) in
                _ = try await prompts.create(draft, by: user)
            }
        }
        router.get("/prompts/{id}/edit") { _, context in
            let user = try context.requireUser()
            let id = try context.rowID()
            let prompt = try await prompts.prompt(id, for: user)
            guard PromptService.canChange(prompt, user) else { throw AppError(PromptError.readOnly) }
            return try await form(context, draft: PromptDraft(prompt), action: "/prompts/\(id)")
        }
        router.post("/prompts/{id}") { request, context in
            let user = try context.requireUser()
            let id = try context.rowID()
            let form = try await request.decode(as: PromptForm.self, context: context)
            return try await saving(context, form: form, action: "/prompts/\(id)") { draft throws(PromptError) in
                _ = try await prompts.update(id, with: draft, by: user)
            }
        }
        router.post("/prompts/{id}/delete") { _, context in
            try await prompts.delete(try context.rowID(), by: try context.requireUser())
            return Response.seeOther("/prompts")
        }
        router.post("/prompts/{id}/duplicate") { _, context in
            let copy = try await prompts.duplicate(try context.rowID(), by: try context.requireUser())
            return Response.seeOther("/prompts/\(copy.id)/edit")
        }
        router.get("/prompts/{id}/use") { _, context in try await useForm(context, values: [:]) }
        router.post("/prompts/{id}/use") { request, context in try await use(request, context) }
    }

    /// The first `PromptService.maxListed` prompts the user may use, those whose command or title holds `?q=` when
    /// it is given, and whether there are more.
    private func list(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let query = request.uri.queryParameters["q"].map(String.init) ?? ""
        let found = try await prompts.visible(to: user, matching: query, limit: PromptService.maxListed + 1)
        let rows = found.prefix(PromptService.maxListed).map { prompt -> [String: Any] in
            [
                "id": prompt.id, "title": prompt.title, "command": prompt.command, "body": prompt.body,
                "variables": prompt.variables.joined(separator: ", "), "has_variables": !prompt.variables.isEmpty,
                "mine": prompt.authorID == user.id, "can_change": PromptService.canChange(prompt, user),
                "shared": prompt.visibility != .private,
            ]
        }
        return pages.page(
            "prompts", title: "Prompts", context: context,
            values: [
                "prompts": rows, "query": query, "example_variable": "{{topic}}",
                "more": found.count > PromptService.maxListed, "max_listed": PromptService.maxListed,
            ])
    }

    /// Saves the form with `save`: back to the list when it worked, else the form again with the problem (422).
    private func saving(
        _ context: AppRequestContext, form: PromptForm, action: String,
        _ save: (PromptDraft) async throws(PromptError) -> Void
    ) async throws -> Response {
        do {
            try await save(try form.draft())
        } catch {
            let problem = AppError(mapping: error) ?? AppError.internalError
            guard problem.status == .unprocessableContent else { throw error }
            let shown = (try? form.draft()) ?? PromptDraft(title: form.title ?? "", command: "", body: form.body ?? "")
            return try await self.form(context, draft: shown, action: action, error: problem.message)
        }
        return .seeOther("/prompts")
    }

    /// The form that makes (`action` "/prompts") or changes a prompt, with `error` above it (then a 422).
    private func form(
        _ context: AppRequestContext, draft: PromptDraft, action: String, error: String? = nil
    ) async throws -> Response {
        _ = try context.requireUser()
        let groupRows = try await groups.groups().map { group in
            ["id": group.id, "name": group.name, "checked": draft.groupIDs.contains(group.id)] as [String: Any]
        }
        let values: [String: Any] = [
            "action": action, "is_new": action == "/prompts", "title": draft.title, "command": draft.command,
            "body": draft.body, "group_choices": groupRows, "has_groups": !groupRows.isEmpty,
            "visibility_private": draft.visibility == .private, "visibility_everyone": draft.visibility == .everyone,
            "visibility_groups": draft.visibility == .groups, "error": error ?? "",
            "max_title": PromptDraft.maxTitleLength, "max_command": PromptDraft.maxCommandLength,
            "max_body": PromptDraft.maxBodyLength, "example_variable": "{{language}}",
        ]
        return pages.page(
            "prompt_form", title: action == "/prompts" ? "New prompt" : "Edit prompt", context: context,
            values: values, status: error == nil ? .ok : .unprocessableContent)
    }

    /// Fills the prompt in and starts a conversation with it; the form again with the problem when a variable is
    /// missing (422).
    private func use(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let form = try await request.decode(as: PromptUseForm.self, context: context)
        let id = try context.rowID()
        let values = form.variables ?? [:]
        let text: String
        do throws(PromptError) {
            text = try await prompts.fill(id, with: values, for: user)
        } catch {
            let problem = AppError(error)
            guard problem.status == .unprocessableContent else { throw error }
            return try await useForm(context, values: values, model: form.model, error: problem.message)
        }
        let (conversation, _) = try await chat.startConversation(
            userID: user.id, firstMessage: text, model: form.model, receivedAt: context.receivedAt)
        return .seeOther("/c/\(conversation.id)")
    }

    /// The form that fills the prompt's variables in (one labelled field each) and chooses the conversation's model.
    private func useForm(
        _ context: AppRequestContext, values: [String: String], model: String? = nil, error: String? = nil
    ) async throws -> Response {
        let user = try context.requireUser()
        let prompt = try await prompts.prompt(try context.rowID(), for: user)
        let selected = model ?? chat.catalog.defaultModel?.id
        let fields = prompt.variables.enumerated().map { index, name in
            ["number": index + 1, "name": name, "value": values[name] ?? ""] as [String: Any]
        }
        let models = try await chat.models(for: user.id).filter { !$0.generatesImages }.map { model in
            ["id": model.id, "name": model.displayName, "selected": model.id == selected] as [String: Any]
        }
        return pages.page(
            "prompt_use", title: "Use “\(prompt.title)”", context: context,
            values: [
                "id": prompt.id, "title": prompt.title, "command": prompt.command, "body": prompt.body,
                "fields": fields, "has_fields": !fields.isEmpty, "models": models, "error": error ?? "",
            ], status: error == nil ? .ok : .unprocessableContent)
    }
}
