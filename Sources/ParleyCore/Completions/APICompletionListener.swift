import Synchronization

/// An API completion as the retry loop's listener: keeps its text, reasoning, usage and answering model, and hands
/// each piece of text on as it comes.
final class APICompletionListener: UpstreamListener {
    /// What has come so far.
    struct Received {
        var model: ModelInfo
        var text = ""
        var reasoning = ""
        var usage: Usage?
        var isCutAtLimit = false
    }

    let id: APICompletionID
    private let received: Mutex<Received>
    private let generations: GenerationManager
    private let onText: @Sendable (CompletionChunk) -> Void

    /// Creates the listener of completion `id`, asked of `model`.
    init(
        id: APICompletionID, model: ModelInfo, generations: GenerationManager,
        onText: @escaping @Sendable (CompletionChunk) -> Void
    ) {
        self.id = id
        self.received = Mutex(Received(model: model))
        self.generations = generations
        self.onText = onText
    }

    /// What has come so far.
    var snapshot: Received { received.withLock { $0 } }

    var hasOutput: Bool { received.withLock { !$0.text.isEmpty || !$0.reasoning.isEmpty } }
    var logLabel: String { "api completion \(id)" }
    func requestSent() {}
    func attemptFailed() {}
    func fellBack(to model: ModelInfo) { received.withLock { $0.model = model } }

    /// Keeps the chunk and hands text on; once text flows, further bytes may wait a coalescing interval unread, as a
    /// reply's do (the caller gets one chunk an interval rather than one a token).
    func receive(_ chunk: CompletionChunk) -> Duration {
        switch chunk {
        case .text(let text) where !text.isEmpty:
            received.withLock { $0.text += text }
        case .reasoning(let text) where !text.isEmpty:
            received.withLock { $0.reasoning += text }
        case .text, .reasoning:
            return .zero
        case .usage(let prompt, let completion, let cached, let reasoning):
            received.withLock {
                $0.usage = Usage(
                    promptTokens: prompt, cachedPromptTokens: cached, completionTokens: completion,
                    reasoningTokens: reasoning)
            }
            return .zero
        case .cutAtLimit:
            received.withLock { $0.isCutAtLimit = true }
            return .zero
        case .toolCall:
            // The endpoint offers no tool, so a model asks for none.
            return .zero
        }
        onText(chunk)
        return generations.settings.coalesceInterval(running: generations.streamingCount)
    }
}
