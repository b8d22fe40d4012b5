import Hummingbird
import ParleyCore

/// Settings → Knowledge: the user's collections (list, create), one collection's page (its documents with their
/// status, upload, rename, delete), each a plain form without script.
struct KnowledgeController {
    let knowledge: KnowledgeService
    let upload: KnowledgeUpload
    let pages: PageRenderer

    /// The name and description fields of the create and rename forms.
    struct CollectionForm: Decodable {
        var name: String?
        var description: String?
    }

    /// Adds the routes.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/knowledge") { _, context in try await list(context) }
        router.post("/knowledge") { request, context in
            let user = try context.requireUser()
            let form = try await request.decode(as: CollectionForm.self, context: context)
            do {
                let made = try await knowledge.create(
                    name: form.name ?? "", description: form.description ?? "", for: user.id)
                return Response.seeOther("/knowledge/\(made.id)")
            } catch KnowledgeError.invalid(let problem) {
                return try await list(context, form: form, error: problem)
            }
        }
        router.get("/knowledge/{id}") { _, context in try await show(context) }
        router.post("/knowledge/{id}") { request, context in
            let user = try context.requireUser()
            let id = try context.rowID()
            let form = try await request.decode(as: CollectionForm.self, context: context)
            do {
                _ = try await knowledge.update(
                    id, name: form.name ?? "", description: form.description ?? "", for: user.id)
                return Response.seeOther("/knowledge/\(id)")
            } catch KnowledgeError.invalid(let problem) {
                return try await show(context, form: form, error: AppError(KnowledgeError.invalid(problem)))
            }
        }
        router.post("/knowledge/{id}/delete") { _, context in
            try await knowledge.delete(try context.rowID(), for: try context.requireUser().id)
            return Response.seeOther("/knowledge")
        }
        router.post("/knowledge/{id}/documents") { request, context in
            let user = try context.requireUser()
            let id = try context.rowID()
            // Whose it is comes first: a stranger's upload is a 404, whatever its body.
            _ = try await knowledge.collection(id, of: user.id)
            let outcome: KnowledgeUpload.Outcome
            do {
                outcome = try await upload.receive(request, context: context, into: id, userID: user.id)
            } catch let error as AppError where error.status == .unprocessableContent {
                return try await show(context, error: error)
            }
            guard outcome.refused.isEmpty else { return try await show(context, refused: outcome.refused) }
            return Response.seeOther("/knowledge/\(id)")
        }
        router.post("/knowledge/{id}/documents/{document_id}/delete") { _, context in
            let id = try context.rowID()
            try await knowledge.deleteDocument(
                try context.rowID("document_id"), in: id, of: try context.requireUser().id)
            return Response.seeOther("/knowledge/\(id)")
        }
    }

    /// The list of the user's collections and the form that makes one, with `error` above it (then a 422).
    private func list(_ context: AppRequestContext, form: CollectionForm? = nil, error: String? = nil) async throws
        -> Response
    {
        let user = try context.requireUser()
        let rows = try await knowledge.collections(of: user.id).map { collection -> [String: Any] in
            [
                "id": collection.id, "name": collection.name, "description": collection.description,
                "document_count": collection.documentCount,
                "size": StorageStatus.megabytes(collection.byteCount),
            ]
        }
        return pages.page(
            "knowledge", title: "Knowledge", context: context,
            values: [
                "collections": rows, "name": form?.name ?? "", "description": form?.description ?? "",
                "error": error ?? "", "max_name": KnowledgeService.maxNameLength,
                "max_description": KnowledgeService.maxDescriptionLength,
            ], status: error == nil ? .ok : .unprocessableContent)
    }

    /// A collection's page: with `error` shown above it, with its status (a refused rename keeps the form's values);
    /// with the documents an upload `refused` listed, each with its reason, with the first one's status.
    private func show(
        _ context: AppRequestContext, form: CollectionForm? = nil, refused: [(name: String, error: AppError)] = [],
        error: AppError? = nil
    ) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.rowID()
        let collection = try await knowledge.collection(id, of: user.id)
        let documents = try await knowledge.documents(in: id, of: user.id).map(Self.documentValues)
        let limit = upload.limit
        return pages.page(
            "knowledge_collection", title: collection.name, context: context,
            values: [
                "collection": [
                    "name": collection.name, "description": collection.description,
                    "document_count": collection.documentCount, "one_document": collection.documentCount == 1,
                    "size": StorageStatus.megabytes(collection.byteCount),
                ] as [String: Any],
                "id": id, "collection_id": id, "name": form?.name ?? collection.name,
                "description": form?.description ?? collection.description,
                "documents": documents, "has_reading": documents.contains { $0["is_reading"] as? Bool == true },
                "refusals": refused.map { ["name": $0.name, "message": $0.error.message] },
                "has_refusals": !refused.isEmpty, "error": error?.message ?? "",
                "max_files": limit.maxFiles, "max_megabytes": limit.maxFileBytes / (1024 * 1024),
                "max_name": KnowledgeService.maxNameLength, "max_description": KnowledgeService.maxDescriptionLength,
            ], status: error?.status ?? refused.first?.error.status ?? .ok)
    }

    /// A document's row on its collection's page.
    private static func documentValues(_ document: Document) -> [String: Any] {
        [
            "id": document.id, "name": document.name, "kind": document.kind.label,
            "size": StorageStatus.megabytes(Int64(document.byteCount)),
            "is_ready": document.status == .ready, "is_reading": document.status == .reading,
            "is_failed": document.status == .failed, "failure": document.failure ?? "",
            "pages": document.kind == .pdf ? document.pageCount : 0, "one_page": document.pageCount == 1,
        ]
    }
}
