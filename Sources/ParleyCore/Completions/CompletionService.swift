import Logging

/// Completions asked through the OpenAI-compatible endpoint: the user's models and budget, the providers with their
/// retries and fallback (the engine's own loop), priced and counted in the rollup as the API's; no conversation holds
/// them.
public final class CompletionService: Sendable {
    let chat: ChatService
    let generations: GenerationManager
    let store: any APICompletionStore

    /// Creates the service over the chat service (models and access), the engine and the cost records.
    public init(chat: ChatService, generations: GenerationManager, store: any APICompletionStore) {
        self.chat = chat
        self.generations = generations
        self.store = store
    }

    /// The models the user may use, in the catalog's order.
    public func models(for userID: UserID) async throws(ChatError) -> [ModelInfo] {
        try await chat.models(for: userID)
    }

    /// Checks the request's model (known, the user's to use, writing text, seeing images when sent) and its options
    /// (the model's ranges), and records the completion as started, which a spent budget refuses; `run` then streams
    /// it.
    public func begin(_ request: APICompletionRequest, userID: UserID, keyID: Int64?) async throws(ChatError)
        -> APICompletionStart
    {
        guard !request.model.isEmpty else { throw .unknownModel("") }
        let model = try await chat.resolveModel(request.model, current: nil, userID: userID)
        guard !model.generatesImages else { throw .modelDrawsImages(model.id) }
        guard model.vision || !request.turns.contains(where: { !$0.images.isEmpty }) else {
            throw .modelCannotSeeImages(model.id)
        }
        try request.options.validate(for: model)
        do {
            let id = try await store.beginAPICompletion(userID: userID, keyID: keyID, model: model.id)
            return APICompletionStart(id: id, model: model, request: request, service: self)
        } catch {
            throw chat.map(error)
        }
    }

    /// Streams a started completion, handing each piece of text and reasoning to `onText` (on a network thread; it
    /// must not block), then records how it ended with its cost, also when the caller's task is cancelled.
    func run(_ start: APICompletionStart, onText: @escaping @Sendable (CompletionChunk) -> Void) async
        -> APICompletion
    {
        let listener = APICompletionListener(
            id: start.id, model: start.model, generations: generations, onText: onText)
        let end: APICompletion.End
        if let provider = generations.catalog.provider(for: start.model) {
            let request = CompletionRequest(model: start.model, turns: start.request.turns)
                .applying(start.request.options.over(start.model.defaultOptions))
            let attempt = UpstreamAttempt(
                modelID: start.model.id, provider: provider, request: request, keepsWholeContext: true)
            generations.runningCompletions.add(1, ordering: .relaxed)
            let ended = await generations.streamWithRetries(attempt, model: start.model, for: listener)
            generations.runningCompletions.subtract(1, ordering: .relaxed)
            switch ended {
            case .completed: end = listener.snapshot.isCutAtLimit ? .cutAtLimit : .complete
            case .failed(let error): end = .failed(error)
            case .cancelled: end = .cancelled
            }
        } else {
            end = .failed(.missingKey(provider: start.model.providerID))
        }
        return await record(listener.snapshot, end: end, of: start)
    }

    /// Prices and stores the completion's end (uncancelled: a caller that went away is still charged for what came).
    private func record(
        _ received: APICompletionListener.Received, end: APICompletion.End, of start: APICompletionStart
    )
        async -> APICompletion
    {
        let status: MessageStatus
        var failure: FailureReason?
        switch end {
        case .complete: status = .complete
        case .cutAtLimit: status = .truncated
        case .failed(let error): status = .error; failure = error.reason
        case .cancelled: status = .stopped
        }
        let promptTokens = start.request.turns.reduce(0) { $0 + ContextWindow.estimatedTokens($1) }
        let outcome = ReplyOutcome(
            content: "", status: status,
            usage: GenerationManager.chargedUsage(
                text: received.text, reasoning: received.reasoning, reported: received.usage,
                estimatedPrompt: promptTokens),
            failure: failure, pricing: ReplyPricing(received.model))
        let charged: Usage = await generations.uncancelled { [store, generations] in
            do {
                return try await store.finishAPICompletion(id: start.id, outcome: outcome)
            } catch {
                generations.logger.error(
                    "saving a finished API completion failed", metadata: ["id": "\(start.id)", "error": "\(error)"])
                return outcome.usage
            }
        }
        return APICompletion(
            model: received.model, text: received.text, reasoning: received.reasoning, usage: charged, end: end)
    }
}

/// A completion recorded as started, with the model that will answer it; `run` streams it once.
public struct APICompletionStart: Sendable {
    public let id: APICompletionID
    public let model: ModelInfo
    let request: APICompletionRequest
    let service: CompletionService

    /// Streams the completion, handing each piece of text and reasoning to `onText` (on a network thread; it must not
    /// block); cancelling the task closes the upstream request. The completion is charged however it ends.
    public func run(onText: @escaping @Sendable (CompletionChunk) -> Void) async -> APICompletion {
        await service.run(self, onText: onText)
    }
}
