/// What a stream does after its provider failed, as the loop needs it (small, since that loop's frame is held for as
/// long as the stream runs).
private enum AttemptStep {
    case retry(after: Duration)
    case fallBack
    case fail(ProviderError)
}

extension GenerationManager {
    /// Streams `first` to `listener`, retrying rate limits and outages before the first text, then once more through
    /// the fallback of `model` when it has one. Cancelling the task closes the upstream request.
    func streamWithRetries<Listener: UpstreamListener>(
        _ first: UpstreamAttempt, model: ModelInfo, for listener: Listener
    ) async -> UpstreamEnd {
        var attempt = first
        while true {
            do {
                try await attempt.provider.streamCompletion(
                    attempt.request,
                    onSent: { listener.requestSent() }
                ) { chunk in
                    listener.receive(chunk)
                }
                return .completed
            } catch {
                // A provider that failed before sending releases its starter now, not after its retries.
                listener.attemptFailed()
                if error == .cancelled || Task.isCancelled { return .cancelled }
                switch nextAttempt(after: error, of: &attempt, model: model, for: listener) {
                case .retry(let delay):
                    do { try await clock.sleep(for: delay) } catch { return .cancelled }
                    GenerationMetrics.retry(model: attempt.modelID)
                case .fallBack:
                    continue
                case .fail(let error):
                    return .failed(error)
                }
            }
        }
    }

    /// Decides what follows a provider's error (`UpstreamAttempt.next`), with its log lines and metrics. Kept out of
    /// the async loop above so that its values do not enlarge the task's frame, which lives as long as the stream.
    @inline(never)
    private func nextAttempt<Listener: UpstreamListener>(
        after error: ProviderError, of attempt: inout UpstreamAttempt, model: ModelInfo, for listener: Listener
    ) -> AttemptStep {
        GenerationMetrics.upstreamError(model: attempt.modelID, code: error.reason.code)
        let fallback = model.fallback.flatMap(catalog.model).flatMap { model in
            catalog.provider(for: model).map { (model: model, provider: $0) }
        }
        let failed = attempt
        let next = attempt.next(after: error, hasText: listener.hasOutput, policy: settings.retry, fallback: fallback)
        if attempt.isHalved, !failed.isHalved {
            logger.notice(
                "the provider refused the context as too long: asking again with about half",
                metadata: [
                    "model": "\(attempt.modelID)",
                    "turns": "\(failed.request.turns.count) -> \(attempt.request.turns.count)",
                ])
        }
        switch next {
        case .retry(let delay):
            return .retry(after: delay)
        case .fallBack:
            if let fallback {
                logger.notice(
                    "falling back",
                    metadata: ["model": "\(failed.modelID)", "fallback": "\(fallback.model.id)"])
                listener.fellBack(to: fallback.model)
            }
            return .fallBack
        case .fail(let error):
            logger.notice("stream failed", metadata: ["stream": "\(listener.logLabel)", "error": "\(error)"])
            return .fail(error)
        }
    }
}

/// A conversation's reply as the retry loop's listener: its chunks go through the manager's coalescing.
struct ConversationReply: UpstreamListener {
    let manager: GenerationManager
    let reply: ReplyRun

    var hasOutput: Bool { reply.hasOutput }
    var logLabel: String { "message \(reply.job.assistantMessageID)" }
    func requestSent() { reply.markRequestSent() }
    func attemptFailed() { reply.markUnderway() }
    func fellBack(to model: ModelInfo) { reply.updateReport { $0.model = model } }
    func receive(_ chunk: CompletionChunk) -> Duration { manager.receive(chunk, for: reply) }
}
