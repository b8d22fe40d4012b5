import ParleyMarkdown

/// How the streaming part of a reply ended.
enum StreamEnd: Sendable {
    case completed
    case failed(FailureReason)
    case cancelled
}

extension GenerationManager {
    /// Runs one reply from first request to `done`.
    func run(_ generation: Generation) async {
        // The streaming part runs in its own task, owned and awaited here, so that Stop can cancel it (closing the
        // upstream request) while this task, not cancelled, still saves the reply and sends `done`.
        let streaming = Task { await self.stream(generation) }
        let stoppedEarly = generation.state.withLock { state in
            state.streaming = streaming
            return state.stopCause != nil
        }
        if stoppedEarly { streaming.cancel() }
        let end = await withTaskCancellationHandler {
            await streaming.value
        } onCancel: {
            generation.stop(.shutdown)
            streaming.cancel()
        }
        await finish(generation, end: end)
    }

    /// Streams the reply from its provider, retrying rate limits and outages before the first token, then once more
    /// through the model's fallback when it has one.
    private func stream(_ generation: Generation) async -> StreamEnd {
        // Whoever started the reply waits until its request is on its way; however this ends, it is released.
        defer { generation.markUnderway() }
        let job = generation.job
        var request: CompletionRequest
        do {
            request = try await completionRequest(for: job, history: generation.takeHistory())
        } catch let failure {
            return .failed(failure)
        }
        // Released here, the starter runs at this task's first suspension: once the request below has left (or, for an
        // image, once the drawing is asked for), not after the whole reply.
        generation.markUnderway()
        let promptTokens = request.turns.reduce(0) { $0 + ContextWindow.estimatedTokens($1) }
        generation.state.withLock { $0.estimatedPromptTokens = promptTokens }
        if job.model.generatesImages { return await drawImage(for: generation, prompt: request.turns.last { $0.role == .user }?.content ?? "") }
        var model = job.model
        guard var provider = catalog.provider(for: model) else {
            return .failed(ProviderError.missingKey(provider: model.providerID).reason)
        }
        var attempt = 0
        while true {
            do {
                try await provider.streamCompletion(request) { chunk in self.receive(chunk, for: generation) }
                return .completed
            } catch {
                if error == .cancelled || Task.isCancelled { return .cancelled }
                GenerationMetrics.upstreamError(model: model.id, code: error.reason.code)
                let hasText = generation.state.withLock { $0.hasText }
                if error.isRetryable, !hasText, attempt >= settings.retry.maxRetries, model == job.model,
                   let fallback = model.fallback.flatMap(catalog.model), let fallbackProvider = catalog.provider(for: fallback) {
                    logger.notice("falling back", metadata: ["model": "\(model.id)", "fallback": "\(fallback.id)"])
                    (model, provider, request.model, attempt) = (fallback, fallbackProvider, fallback.upstreamID, 0)
                    generation.state.withLock { $0.model = fallback }
                    continue
                }
                guard error.isRetryable, !hasText, attempt < settings.retry.maxRetries else {
                    logger.notice("reply failed", metadata: ["message": "\(job.assistantMessageID)", "error": "\(error)"])
                    return .failed(error.reason)
                }
                var retryAfter: Double?
                if case .rateLimited(let seconds) = error { retryAfter = seconds }
                do {
                    try await Task.sleep(for: settings.retry.delay(attempt: attempt, retryAfterSeconds: retryAfter))
                } catch {
                    return .cancelled
                }
                attempt += 1
                GenerationMetrics.retry(model: model.id)
            }
        }
    }

    /// The context sent upstream: the system prompt and the conversation before the reply, trimmed to fit.
    private func completionRequest(for job: GenerationJob, history: [Message]) async throws(FailureReason) -> CompletionRequest {
        let earlier = history.filter { $0.role != .system && !$0.content.isEmpty }
        // Images count toward the window before their bytes are read; only the kept turns' images are then loaded.
        let sendsImages = job.model.vision
        let turns = earlier.map { message in
            ChatTurn(role: message.role, content: message.content, images: !sendsImages || message.role != .user ? [] :
                        message.attachments.map { TurnImage(contentType: $0.format.contentType, bytes: []) })
        }
        var fitted: [ChatTurn]
        do {
            fitted = try ContextWindow.fit(systemPrompt: job.systemPrompt, history: turns,
                                           window: job.model.contextWindow, reserve: settings.replyReserve)
        } catch {
            throw error.reason
        }
        // The kept turns are the latest ones: the end of `earlier`.
        let kept = fitted.indices.filter { fitted[$0].role != .system }
        let images = try await imagesToSend(of: Array(earlier.suffix(kept.count)), job: job)
        for (index, message) in zip(kept, earlier.suffix(kept.count)) where !fitted[index].images.isEmpty {
            fitted[index].images = (images[message.id] ?? []).map { TurnImage(contentType: $0.attachment.format.contentType, bytes: $0.bytes) }
        }
        return CompletionRequest(model: job.model.upstreamID, turns: fitted)
    }

    /// The images of the user's messages, with their bytes, when the model can see them (none otherwise).
    private func imagesToSend(of messages: [Message], job: GenerationJob) async throws(FailureReason) -> [MessageID: [AttachmentContent]] {
        let withImages = messages.filter { $0.role == .user && !$0.attachments.isEmpty }.map(\.id)
        guard job.model.vision, !withImages.isEmpty else { return [:] }
        do {
            return try await store.attachmentContents(messageIDs: withImages, userID: job.userID)
        } catch {
            logger.error("reading the conversation's images failed", metadata: ["error": "\(error)"])
            throw FailureReason(code: "internal_error", message: "Parley could not read this conversation's images.")
        }
    }

    /// Takes one chunk from the provider, on its network thread: the reply's first text goes out at once, later text
    /// with the next `token` event the coalescing timer sends. Returns how long the provider may leave further bytes
    /// unread (half the coalescing interval once text is flowing): reading them sooner would show nothing sooner, and
    /// reading several chunks at once costs one wake-up and one read instead of one each.
    @discardableResult
    func receive(_ chunk: CompletionChunk, for generation: Generation) -> Duration {
        switch chunk {
        case .text(let text) where !text.isEmpty:
            if generation.receive(text) { emitTokens(of: generation, force: false) }
            return settings.coalesceInterval(running: runningReplies.load(ordering: .relaxed)) / 2
        case .text:
            return .zero
        case .usage(let prompt, let completion, let cached):
            generation.state.withLock {
                $0.providerUsage = Usage(promptTokens: prompt, cachedPromptTokens: cached, completionTokens: completion)
            }
            return .zero
        }
    }

    /// Sends the unsent text of a reply as one `token` event, unless the last one went out less than the
    /// coalescing interval ago; `force` (the reply's end) sends at once, with the final tail if one was held back.
    func emitTokens(of generation: Generation, force: Bool) {
        let now = clock.now
        let interval = settings.coalesceInterval(running: runningReplies.load(ordering: .relaxed))
        generation.state.withLock { state in
            guard !state.unsent.isEmpty || (force && state.markdown.isHoldingTail) else { return }
            if !force, let last = state.lastTokenEvent, last.duration(to: now) < interval { return }
            let html = state.markdown.next(final: force)
            let event = StreamEvent.token(messageID: generation.job.assistantMessageID, text: state.unsent, html: html)
            state.unsent = ""
            state.lastTokenEvent = now
            appendFrame(event.frame(id: generation.nextEventID(&state)), conversationID: generation.job.conversationID)
        }
    }

    /// Sends the text received since their last `token` event of the running replies whose coalescing interval has
    /// passed (the coalescing timer's tick).
    func emitDueTokens() {
        for generation in state.withLock({ Array($0.running.values) }) {
            emitTokens(of: generation, force: false)
        }
    }

    /// Saves the final state, then sends `error` (if any) and `done`, and releases the conversation.
    func finish(_ generation: Generation, end: StreamEnd) async {
        let job = generation.job
        emitTokens(of: generation, force: true)
        let (text, providerUsage, estimatedPrompt, cause, model) = generation.state.withLock {
            ($0.text, $0.providerUsage, $0.estimatedPromptTokens, $0.stopCause, $0.model ?? job.model)
        }
        var status: MessageStatus
        var failure: FailureReason?
        switch end {
        case .completed: status = .complete
        case .failed(let reason): status = .error; failure = reason
        case .cancelled: status = cause == .user ? .stopped : .interrupted
        }
        let outcome = ReplyOutcome(content: text, status: status,
                                   usage: self.usage(text: text, reported: providerUsage, estimatedPrompt: estimatedPrompt),
                                   failure: failure, pricing: ReplyPricing(model))
        // The final save must happen even when this task is being cancelled by a shutdown. The store prices the reply.
        let saved: Result<Usage, StoreError> = await uncancelled { [store] in
            do throws(StoreError) {
                return .success(try await store.finishReply(id: job.assistantMessageID, outcome: outcome))
            } catch {
                return .failure(error)
            }
        }
        var usage = outcome.usage
        switch saved {
        case .success(let charged):
            usage = charged
        case .failure(let error):
            // The reader saw the reply, but it will not be there after a reload: say so rather than end as usual.
            logger.error("saving a finished reply failed", metadata: ["message": "\(job.assistantMessageID)", "error": "\(error)"])
            status = .error
            failure = .notSaved(diskFull: error == .diskFull)
        }
        GenerationMetrics.replyEnded(model: model.id, status: status, after: generation.startedAt.duration(to: .now), usage: usage)
        if let failure { publish(.error(messageID: job.assistantMessageID, reason: failure), of: generation) }
        let done = StreamEvent.done(messageID: job.assistantMessageID, status: status, html: MarkdownRenderer.html(text), usage: usage)
            .frame(id: EventID(messageID: job.assistantMessageID, sequence: EventID.doneSequence))
        // `done` and the release of the conversation happen at once: whoever sees `done` sees nothing running.
        let (waiters, wake) = generation.state.withLock { _ in
            state.withLock { state in
                state.channels[job.conversationID]?.log.append(done)
                state.running[job.assistantMessageID] = nil
                runningReplies.subtract(1, ordering: .relaxed)
                state.channels[job.conversationID]?.running = nil
                let waiters = state.channels[job.conversationID]?.takeWaiters() ?? []
                removeIfUnused(job.conversationID, in: &state)
                // During a shutdown, streams of this conversation end once they have sent `done`.
                return (waiters, state.isShuttingDown ? Wake.ended : .frames)
            }
        }
        for waiter in waiters { waiter.resume(returning: wake) }
        if status == .complete { await improveTitle(of: job, model: model, answer: text) }
    }

    /// The provider's token counts when it sent them, else an estimate flagged as such (the store prices them).
    private func usage(text: String, reported: Usage?, estimatedPrompt: Int) -> Usage {
        reported ?? Usage(promptTokens: estimatedPrompt, completionTokens: ContextWindow.estimatedTokens(text), estimated: true)
    }
}
