import Foundation
import Hummingbird
import ParleyCore

/// Downloads: one conversation as Markdown or JSON, and all of the user's data as one JSON file.
struct ExportController {
    let chat: ChatService

    /// Adds the routes.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/c/{id}/export.md") { request, context in
            let form = try ParleyRequestDecoder.form(MarkdownForm.self, from: request.uri.query ?? "")
            return try await exportConversation(context, asMarkdown: true, includingReasoning: form.reasoning.isOn)
        }
        router.get("/c/{id}/export.json") { _, context in try await exportConversation(context, asMarkdown: false) }
        router.get("/settings/export.json") { _, context in try await exportAccount(context) }
    }

    /// The Markdown download's query: `reasoning=1` includes the replies' reasoning.
    struct MarkdownForm: Decodable {
        var reasoning: FormFlag?
    }

    private func exportConversation(
        _ context: AppRequestContext, asMarkdown: Bool, includingReasoning: Bool = false
    ) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.rowID()
        guard let transcript = try await chat.transcripts(userID: user.id, conversationID: id).first else {
            throw AppError.notFound
        }
        let title = transcript.conversation.title
        if asMarkdown {
            return .download(
                ByteBuffer(string: MarkdownTranscript.document(transcript, includingReasoning: includingReasoning)),
                contentType: "text/markdown; charset=utf-8",
                baseName: title, fallbackName: "conversation-\(id)", fileExtension: "md")
        }
        return try json(ExportDocument([transcript], account: nil), baseName: title, fallbackName: "conversation-\(id)")
    }

    private func exportAccount(_ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let transcripts = try await chat.transcripts(userID: user.id, conversationID: nil)
        let day = Date().formatted(.iso8601.year().month().day())
        return try json(
            ExportDocument(transcripts, account: user), baseName: "parley-export-\(day)", fallbackName: "parley-export")
    }

    private func json(_ document: ExportDocument, baseName: String, fallbackName: String) throws -> Response {
        .download(
            ByteBuffer(bytes: try APIEncoding.encoder.encode(document)), contentType: "application/json; charset=utf-8",
            baseName: baseName, fallbackName: fallbackName, fileExtension: "json")
    }
}
