import Foundation
import HTTPTypes
import Hummingbird
import ParleyCore
import ParleyJSON

/// The OpenAI-compatible endpoint for scripts and editors: `GET /v1/models` (the caller's models) and
/// `POST /v1/chat/completions`, streamed as OpenAI's chunks or answered whole, through Parley's providers, budgets and
/// cost records. A streamed completion's status waits for its first text, so that a failure before it (a rate limit,
/// an outage after every retry) keeps its own status; a caller that goes away closes the upstream request.
struct OpenAICompatibleController {
    let completions: CompletionService
    let settings: ServerSettings

    /// Adds the routes.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/v1/models") { _, context in try await models(context) }
        // A model's id may hold slashes (`openai/gpt-4o`, a model file's path).
        router.get("/v1/models/**") { _, context in try await model(context) }
        router.post("/v1/chat/completions") { request, context in try await complete(request, context) }
    }

    private func models(_ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let models = try await completions.models(for: user.id).map(entry)
        let body = JSONText { body in
            body.field("object", "list")
            body.field("data", objects: models)
        }
        return Self.json(body.resultBytes)
    }

    /// One model the caller may use, or 404 `model_not_found` (also for one kept from them).
    private func model(_ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = context.parameters.getCatchAll().joined(separator: "/")
        guard let model = try await completions.models(for: user.id).first(where: { $0.id == id }) else {
            throw AppError(.notFound, code: "model_not_found", message: "There is no model named “\(id)”.")
        }
        return Self.json(entry(model).resultBytes)
    }

    /// A model as OpenAI lists one; `created` is now, since Parley does not know when the vendor made it.
    private func entry(_ model: ModelInfo) -> JSONText {
        JSONText { entry in
            entry.field("id", model.id)
            entry.field("object", "model")
            entry.field("created", Int(settings.wallClock().timeIntervalSince1970))
            entry.field("owned_by", model.providerID)
        }
    }

    private func complete(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        var request = request
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true else {
            throw AppError(
                .unsupportedMediaType, code: "unsupported_media_type", message: "Send the body as application/json.")
        }
        // Room for an image of the upload limit in base64 (4 characters for 3 bytes), besides the text.
        let limit = settings.maxUploadBytes / 3 * 4 + AppRequestContext.maxBodySize
        let body = try ParleyRequestDecoder.json(
            ChatCompletionBody.self, from: try await request.collectBody(within: limit))
        let asked = try body.completionRequest(
            maxImageBytes: settings.maxUploadBytes, maxImages: ChatService.maxImagesPerMessage)
        let start: APICompletionStart
        do {
            start = try await completions.begin(asked, userID: user.id, keyID: context.identity?.apiKeyID)
        } catch .unknownModel(let name) {
            throw AppError(.notFound, code: "model_not_found", message: "There is no model named “\(name)”.")
        } catch .invalidSetting(let problem) {
            throw AppError(.badRequest, code: "invalid_request", message: problem)
        }
        let frames = CompletionFrames(
            id: "chatcmpl-" + RandomToken.make(), created: Int(settings.wallClock().timeIntervalSince1970),
            model: start.model.id)
        guard body.stream == true else {
            // A caller that goes away cancels the completion, which closes the upstream request (the connection is then
            // closed after the response, which Hummingbird needs to watch it).
            let result = try await request.body.consumeWithCancellationOnInboundClose { _ in
                await start.run { _ in }
            }
            switch result.end {
            case .failed(let error): throw AppError(upstream: error)
            case .cancelled: throw AppError(ChatError.shuttingDown)
            case .complete, .cutAtLimit: return Self.json(frames.completion(result))
            }
        }
        return try await stream(
            start, frames: frames, includeUsage: body.streamOptions?.includeUsage == true, request: request)
    }

    /// Starts the completion in a task of its own and answers once its first text (or its end) came: a failure
    /// before any text is thrown with its status; otherwise the response streams the rest.
    private func stream(
        _ start: APICompletionStart, frames: CompletionFrames, includeUsage: Bool, request: Request
    ) async throws -> Response {
        let feed = CompletionFeed()
        // Unstructured, since the response (and the stream it writes) outlives this handler; the writer below cancels
        // it when the caller goes away, and it records its end however it ends.
        let task = Task.immediate {
            feed.finish(await start.run { feed.add($0) })
        }
        // A caller that goes away before the first text cancels the completion (the connection then closes after
        // the response, which Hummingbird needs to watch it); later, a failed write does.
        let first = try await request.body.consumeWithCancellationOnInboundClose { _ in
            await withTaskCancellationHandler {
                await feed.next()
            } onCancel: {
                task.cancel()
            }
        }
        if let end = first.end, first.text.isEmpty, first.reasoning.isEmpty, case .failed(let error) = end.end {
            throw AppError(upstream: error)
        }
        return Response(
            status: .ok, headers: EventStreamResponse.headers,
            body: ResponseBody { writer in
                do {
                    try await withTaskCancellationHandler {
                        var batch = first
                        try await writer.write(ByteBuffer(bytes: frames.roleChunk))
                        while true {
                            if let chunk = frames.textChunk(text: batch.text, reasoning: batch.reasoning) {
                                try await writer.write(ByteBuffer(bytes: chunk))
                            }
                            if let end = batch.end {
                                try await writer.write(ByteBuffer(bytes: Self.closing(end, frames, includeUsage)))
                                break
                            }
                            batch = await feed.next()
                        }
                    } onCancel: {
                        task.cancel()
                    }
                } catch {
                    task.cancel()
                    throw error
                }
                try await writer.finish(nil)
            })
    }

    /// What ends a stream: the finish chunk, the usage when asked for, and `[DONE]`; or, after a failure, the error.
    private static func closing(_ completion: APICompletion, _ frames: CompletionFrames, _ includeUsage: Bool)
        -> [UInt8]
    {
        if case .failed(let error) = completion.end {
            return CompletionFrames.errorEvent(AppError(upstream: error))
        }
        var bytes = frames.finishChunk(completion.end)
        if includeUsage { bytes += frames.usageChunk(completion.usage) }
        return bytes + CompletionFrames.done
    }

    private static func json(_ bytes: [UInt8]) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
