import Foundation
import HTTPTypes
import Hummingbird
import ParleyCore
import ParleyDocuments

/// Documents for their owner: uploaded into a conversation's composer (`POST /c/{id}/documents`, or
/// `/api/conversations/{id}/documents`, read in the background), looked at while they are read (`GET /api/documents/{id}`), removed before they are sent
/// (`DELETE /api/documents/{id}`), and served as uploaded (`GET /documents/{id}`).
struct DocumentController {
    let chat: ChatService
    let intake: DocumentIntake
    let documents: any DocumentStore
    let limit: FileFieldLimit

    /// Adds the routes.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.post("/c/{id}/documents") { request, context in try await upload(request, context) }
        router.post("/api/conversations/{id}/documents") { request, context in try await upload(request, context) }
        router.get("/documents/{id}") { request, context in try await original(request, context) }
        router.get("/api/documents/{id}") { request, context in try await show(request, context) }
        router.delete("/api/documents/{id}") { request, context in try await delete(request, context) }
    }

    /// Where a document's original is served.
    static func url(of id: DocumentID) -> String { "/documents/\(id)" }

    /// Stores the request's documents in the conversation's composer and answers 201 with them, `reading`; one refused
    /// refuses them all, and none is kept.
    private func upload(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let conversationID = try context.rowID()
        // Someone else's conversation is refused before its upload is read.
        _ = try await chat.conversation(conversationID, userID: user.id)
        let files = try await DocumentForm.files(of: request, context: context, limit: limit)
        let uploaded = try await DocumentUploads(intake: intake, documents: documents).accept(
            files, place: .conversation(conversationID), userID: user.id, waiting: false)
        struct Uploaded: Encodable { var documents: [DocumentJSON] }
        return try .json(Uploaded(documents: uploaded.map(DocumentJSON.init)), status: .created)
    }

    private func show(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        guard let document = try await documents.document(id: try context.rowID(), userID: user.id) else {
            throw AppError.notFound
        }
        return try .json(DocumentJSON(document))
    }

    private func delete(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        try await documents.deleteDocument(id: try context.rowID(), userID: user.id)
        return Response(status: .noContent)
    }

    /// The original bytes: a PDF inline (the browser's viewer opens it, at `#page=N`), text and HTML as plain text
    /// (an uploaded page never runs), a DOCX as a download.
    private func original(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        guard let content = try await documents.documentContent(id: try context.rowID(), userID: user.id) else {
            throw AppError.notFound
        }
        let document = content.document
        var disposition = AttachmentController.inlineDisposition(document.name)
        if document.kind == .docx { disposition = "attachment" + disposition.dropFirst("inline".count) }
        let headers: HTTPFields = [
            .contentType: document.kind.contentType, .contentDisposition: disposition,
            .cacheControl: "private, max-age=31536000, immutable",
        ]
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: content.bytes)))
    }
}
