import Foundation
import Hummingbird
import ParleyCore

/// Knowledge collections in the JSON API: list, create, read, change (`PATCH`: the fields given), delete; a
/// collection's documents listed, uploaded (multipart, `document` ×N) and deleted.
struct KnowledgeAPIController {
    let knowledge: KnowledgeService
    let upload: KnowledgeUpload

    /// A collection as the API shows it.
    struct CollectionJSON: Encodable {
        var id: CollectionID
        var name: String
        var description: String
        var documentCount: Int
        var bytes: Int64
        var createdAt: Date
        var updatedAt: Date

        init(_ collection: KnowledgeCollection) {
            id = collection.id
            name = collection.name
            description = collection.description
            documentCount = collection.documentCount
            bytes = collection.byteCount
            createdAt = collection.createdAt
            updatedAt = collection.updatedAt
        }
    }

    /// The body of `POST` (a missing name is refused) and `PATCH` (what is left out stays).
    struct CollectionBody: Decodable {
        var name: String?
        var description: String?
    }

    /// The answer to an upload: the documents taken (`reading`), and those refused with their reasons.
    struct UploadJSON: Encodable {
        var data: [DocumentJSON]
        var refused: [RefusalJSON]
    }

    /// A document an upload refused: its name, and the error (with its status) it would have had alone.
    struct RefusalJSON: Encodable {
        var name: String
        var status: Int
        var error: ErrorJSON
    }

    /// An error's code and words.
    struct ErrorJSON: Encodable {
        var code: String
        var message: String
    }

    /// Adds the routes.
    func addRoutes(to router: Router<AppRequestContext>) {
        let api = router.group("api")
        api.get("collections") { _, context in
            let all = try await knowledge.collections(of: try context.requireUser().id).map(CollectionJSON.init)
            return try Response.json(ListJSON(data: all, hasMore: false))
        }
        api.post("collections") { request, context in
            let user = try context.requireUser()
            let body = try await request.decodeJSON(CollectionBody.self, context: context)
            let made = try await knowledge.create(
                name: body.name ?? "", description: body.description ?? "", for: user.id)
            return try Response.json(CollectionJSON(made), status: .created)
        }
        api.get("collections/{id}") { _, context in
            try Response.json(
                CollectionJSON(try await knowledge.collection(try context.rowID(), of: try context.requireUser().id)))
        }
        api.patch("collections/{id}") { request, context in
            let user = try context.requireUser()
            let id = try context.rowID()
            let body = try await request.decodeJSON(CollectionBody.self, context: context)
            let current = try await knowledge.collection(id, of: user.id)
            let updated = try await knowledge.update(
                id, name: body.name ?? current.name, description: body.description ?? current.description,
                for: user.id)
            return try Response.json(CollectionJSON(updated))
        }
        api.delete("collections/{id}") { _, context in
            try await knowledge.delete(try context.rowID(), for: try context.requireUser().id)
            return Response(status: .noContent)
        }
        api.get("collections/{id}/documents") { _, context in
            let documents = try await knowledge.documents(in: try context.rowID(), of: try context.requireUser().id)
            return try Response.json(ListJSON(data: documents.map(DocumentJSON.init), hasMore: false))
        }
        api.post("collections/{id}/documents") { request, context in
            let user = try context.requireUser()
            let id = try context.rowID()
            // Whose it is comes first: a stranger's upload is a 404, whatever its body.
            _ = try await knowledge.collection(id, of: user.id)
            let outcome = try await upload.receive(request, context: context, into: id, userID: user.id)
            if outcome.accepted.isEmpty, let first = outcome.refused.first { throw first.error }
            return try Response.json(
                UploadJSON(
                    data: outcome.accepted.map(DocumentJSON.init),
                    refused: outcome.refused.map {
                        RefusalJSON(
                            name: $0.name, status: Int($0.error.status.code),
                            error: ErrorJSON(code: $0.error.code, message: $0.error.message))
                    }), status: .created)
        }
        api.delete("collections/{id}/documents/{document_id}") { _, context in
            try await knowledge.deleteDocument(
                try context.rowID("document_id"), in: try context.rowID(), of: try context.requireUser().id)
            return Response(status: .noContent)
        }
    }
}
