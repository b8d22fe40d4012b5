import Foundation
import HTTPTypes
import Hummingbird
import ParleyCore

/// The assistants in the JSON API: list, create, read, change (`PATCH`: the fields given), delete and duplicate.
struct AssistantsAPIController {
    let assistants: AssistantService
    let knowledge: KnowledgeService

    /// An assistant as the API shows it; `can_change` says whether the caller may change it, and to whoever may,
    /// one assistant's answer names its knowledge collections (`collection_ids`).
    struct AssistantJSON: Encodable {
        var id: AssistantID
        var name: String
        var description: String
        var icon: String
        var instructions: String
        var model: String
        var settings: GenerationOptions
        var starters: [String]
        var visibility: String
        var groupIds: [GroupID]
        var version: Int
        /// Where its uploaded icon is, when it has one.
        var iconUrl: String?
        var canChange: Bool
        var collectionIds: [CollectionID]?
        var createdAt: Date
        var updatedAt: Date

        init(_ assistant: Assistant, for user: User, collectionIDs: [CollectionID]? = nil) {
            id = assistant.id
            name = assistant.name
            description = assistant.description
            icon = assistant.icon
            instructions = assistant.instructions
            model = assistant.model
            settings = assistant.options
            starters = assistant.starters
            visibility = assistant.visibility.rawValue
            groupIds = assistant.groupIDs
            version = assistant.version
            iconUrl = assistant.hasIconImage ? "/assistants/\(assistant.id)/icon" : nil
            canChange = AssistantService.canChange(assistant, user)
            collectionIds = canChange ? collectionIDs : nil
            createdAt = assistant.createdAt
            updatedAt = assistant.updatedAt
        }
    }

    /// The body of `POST` (a missing name is refused) and `PATCH` (what is left out stays; `collection_ids` are the
    /// knowledge collections, all of them, which must be the author's).
    struct AssistantBody: Decodable {
        var name: String?
        var description: String?
        var icon: String?
        var instructions: String?
        var model: String?
        var settings: GenerationOptions?
        var starters: [String]?
        var visibility: Visibility?
        var groupIds: [GroupID]?
        var collectionIds: [CollectionID]?

        /// `draft` with the body's fields over it.
        func applied(to draft: AssistantDraft) -> AssistantDraft {
            var draft = draft
            if let name { draft.name = name }
            if let description { draft.description = description }
            if let icon { draft.icon = icon }
            if let instructions { draft.instructions = instructions }
            if let model { draft.model = model }
            if let settings { draft.options = settings }
            if let starters { draft.starters = starters }
            if let visibility {
                draft.visibility = visibility
                if visibility != .groups { draft.groupIDs = [] }
            }
            if let groupIds { draft.groupIDs = groupIds }
            return draft
        }
    }

    /// Adds the routes.
    func addRoutes(to router: Router<AppRequestContext>) {
        let api = router.group("api")
        api.get("assistants") { _, context in
            let user = try context.requireUser()
            let all = try await assistants.visible(to: user).map { AssistantJSON($0, for: user) }
            return try Response.json(ListJSON(data: all, hasMore: false))
        }
        api.post("assistants") { request, context in
            let user = try context.requireUser()
            let body = try await request.decodeJSON(AssistantBody.self, context: context)
            let collections = try await knowledge.owned(body.collectionIds ?? [], by: user.id)
            let made = try await assistants.create(body.applied(to: AssistantDraft(name: "")), by: user)
            try await knowledge.attach(collections, toAssistant: made.id, authorID: user.id)
            return try await answer(made, for: user, status: .created)
        }
        api.get("assistants/{id}") { _, context in
            let user = try context.requireUser()
            return try await answer(try await assistants.assistant(try context.rowID(), for: user), for: user)
        }
        api.patch("assistants/{id}") { request, context in
            let user = try context.requireUser()
            let id = try context.rowID()
            let body = try await request.decodeJSON(AssistantBody.self, context: context)
            let current = try await assistants.assistant(id, for: user)
            guard AssistantService.canChange(current, user) else { throw AppError(ChatError.readOnly) }
            var collections: [CollectionID]?
            if let ids = body.collectionIds { collections = try await knowledge.owned(ids, by: current.authorID) }
            let updated = try await assistants.update(id, with: body.applied(to: AssistantDraft(current)), by: user)
            if let collections {
                try await knowledge.attach(collections, toAssistant: id, authorID: current.authorID)
            }
            return try await answer(updated, for: user)
        }
        api.delete("assistants/{id}") { _, context in
            try await assistants.delete(try context.rowID(), by: try context.requireUser())
            return Response(status: .noContent)
        }
        api.post("assistants/{id}/duplicate") { _, context in
            let user = try context.requireUser()
            let copy = try await assistants.duplicate(try context.rowID(), by: user)
            return try await answer(copy, for: user, status: .created)
        }
    }

    /// One assistant as JSON, with its collections for whoever may change it.
    private func answer(_ assistant: Assistant, for user: User, status: HTTPResponse.Status = .ok) async throws
        -> Response
    {
        var collections: [CollectionID]?
        if AssistantService.canChange(assistant, user) {
            collections = try await knowledge.collectionIDs(ofAssistant: assistant.id)
        }
        return try Response.json(AssistantJSON(assistant, for: user, collectionIDs: collections), status: status)
    }
}
