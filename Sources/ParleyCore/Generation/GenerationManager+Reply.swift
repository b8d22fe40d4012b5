import ParleyMarkdown

/// How the streaming part of a reply ended.
enum StreamEnd: Sendable {
    case completed
    case failed(FailureReason)
    case cancelled
}

/// How a reply goes on once its request is built.
private enum ReplyPlan {
    case stream(UpstreamAttempt)
    case draw(prompt: String)
    case end(StreamEnd)
}

extension GenerationManager {
    /// Runs one reply from first request to `done`, in the reply's task: Stop cancels that task, which closes the
    /// upstream request, and the reply, saved as `stopped`, still ends with `done`.
    func run(_ reply: ReplyRun) async {
        // The request is built in a call that returns before the reply streams, so that its frames are not held while
        // it does: a task keeps the memory of its deepest point until it ends.
        let end: StreamEnd
        switch await plan(reply) {
        case .stream(let attempt):
            // The provider says when the request has left (`markRequestSent`), which releases whoever started the
            // reply.
            end = await streamSteps(attempt, for: reply)
        case .draw(let prompt):
            // An image's starter does not wait for the drawing, which takes seconds.
            reply.markUnderway()
            end = await drawImage(for: reply, prompt: prompt)
        case .end(let early):
            end = early
        }
        // However the reply ended, even before any request left, its starter is released.
        reply.markUnderway()
        // A Stop from now on has nothing left to close; the reply is saved as it ended.
        reply.markStreamOver()
        await finish(reply, end: end)
    }

    /// Builds the reply's request and says how the reply goes on: streamed from the model's provider, drawn by an
    /// image model, or ended already (no provider key, or a context that cannot fit).
    private func plan(_ reply: ReplyRun) async -> ReplyPlan {
        var request: CompletionRequest
        let passages: [DocumentPassage]
        do {
            let history = reply.takeHistory()
            passages = try await self.passages(for: reply.job, history: history)
            request = try await completionRequest(for: reply.job, history: history, passages: passages)
        } catch let failure {
            return .end(.failed(failure))
        }
        if let tools, reply.job.model.tools {
            var servers = reply.job.toolServers
            if servers == nil { servers = await tools.servers().filter(\.enabledByDefault).map(\.id) }
            request.tools = await tools.tools(servers: servers ?? [])
        }
        let promptTokens = request.turns.reduce(0) { $0 + ContextWindow.estimatedTokens($1) }
        reply.updateReport { report in
            report.estimatedPromptTokens = promptTokens
            report.sources = passages.map(\.source)
            report.documentTokens = passages.reduce(0) { $0 + ContextWindow.estimatedTokens($1.text) }
        }
        let model = reply.job.model
        if model.generatesImages { return .draw(prompt: request.turns.last { $0.role == .user }?.content ?? "") }
        guard let provider = catalog.provider(for: model) else {
            return .end(.failed(ProviderError.missingKey(provider: model.providerID).reason))
        }
        return .stream(UpstreamAttempt(modelID: model.id, provider: provider, request: request))
    }

    /// The passages of the documents sent in the branch and of the conversation's collections that the reply is
    /// given (none, without a read, when there are neither).
    private func passages(for job: GenerationJob, history: [HistoryMessage]) async throws(FailureReason)
        -> [DocumentPassage]
    {
        let documentIDs = history.flatMap(\.documentIDs)
        guard let documents, !documentIDs.isEmpty || job.usesKnowledge else { return [] }
        let historyTokens = history.reduce(0) { $0 + ContextWindow.estimatedTokens($1.content) }
        let query = SourceQuery(
            documentIDs: documentIDs, collectionIDs: [], knowledgeOf: job.usesKnowledge ? job.conversationID : nil,
            question: history.last { $0.role == .user }?.content ?? "",
            budget: SourcesPrompt.budget(
                window: job.model.contextWindow, reserve: settings.replyReserve, historyTokens: historyTokens))
        do {
            return try await documents.passages(for: query)
        } catch {
            logger.error("reading the conversation's documents failed", metadata: ["error": "\(error)"])
            throw FailureReason(code: "internal_error", message: "Parley could not read this conversation's documents.")
        }
    }

    /// The context sent upstream: the system prompt (with the documents' passages) and the conversation before the
    /// reply, trimmed to fit, with the images of the kept turns when the model can see them.
    private func completionRequest(
        for job: GenerationJob, history: [HistoryMessage], passages: [DocumentPassage]
    ) async throws(FailureReason) -> CompletionRequest {
        let (turns, kept) = try ReplyContext.fittedTurns(
            systemPrompt: SourcesPrompt.systemPrompt(job.systemPrompt, passages: passages), history: history,
            model: job.model, reserve: settings.replyReserve)
        // Only the turns that keep images (for a model that sees them) hold placeholders to fill.
        let withImages = kept.filter { !turns[$0.index].images.isEmpty }
        let request = withImages.isEmpty ? turns : try await filledImages(of: turns, at: withImages, job: job)
        return CompletionRequest(model: job.model, turns: request).applying(job.options.over(job.model.defaultOptions))
    }

    /// The turns with the images of `messages` read in place of their placeholders.
    private func filledImages(
        of turns: [ChatTurn], at messages: [ReplyContext.KeptMessage],
        job: GenerationJob
    ) async throws(FailureReason) -> [ChatTurn] {
        var turns = turns
        let images = try await imagesToSend(of: messages.map(\.message), job: job)
        for (index, message) in messages {
            turns[index].images = (images[message.id] ?? []).map { content in
                TurnImage(
                    contentType: content.attachment.format.contentType, bytes: content.bytes,
                    digest: content.attachment.digest)
            }
        }
        return turns
    }

    /// The images of the user's messages, with their bytes, when the model can see them (none otherwise).
    private func imagesToSend(of messages: [HistoryMessage], job: GenerationJob) async throws(FailureReason)
        -> [MessageID: [AttachmentContent]]
    {
        let withImages = messages.filter { $0.role == .user && !$0.attachments.isEmpty }.map(\.id)
        guard job.model.vision, !withImages.isEmpty else { return [:] }
        do {
            return try await store.attachmentContents(messageIDs: withImages, userID: job.userID)
        } catch {
            logger.error("reading the conversation's images failed", metadata: ["error": "\(error)"])
            throw FailureReason(code: "internal_error", message: "Parley could not read this conversation's images.")
        }
    }

    /// Takes one chunk from the provider, on its network thread: the reply's first text (reasoning or answer) goes out
    /// at once, later text with the next `reasoning` or `token` event the coalescing timer sends. Returns how long the
    /// provider may leave further bytes unread (the coalescing interval once text is flowing): the reply shows new text
    /// once an interval anyway, and reading an interval's chunks at once costs one wake-up and one read instead of one
    /// each.
    @discardableResult
    func receive(_ chunk: CompletionChunk, for reply: ReplyRun) -> Duration {
        switch chunk {
        case .text(let text) where !text.isEmpty:
            if reply.receive(text) { emitTokens(of: reply, force: false) }
            return settings.coalesceInterval(running: streamingCount)
        case .reasoning(let text) where !text.isEmpty:
            if reply.receiveReasoning(text) { emitTokens(of: reply, force: false) }
            return settings.coalesceInterval(running: streamingCount)
        case .text, .reasoning:
            return .zero
        case .usage(let prompt, let completion, let cached, let reasoning):
            reply.updateReport {
                $0.providerUsage = Usage(
                    promptTokens: prompt, cachedPromptTokens: cached, completionTokens: completion,
                    reasoningTokens: reasoning)
            }
            return .zero
        case .cutAtLimit:
            reply.updateReport { $0.isCutAtLimit = true }
            return .zero
        case .toolCall(let call):
            reply.updateReport { $0.toolCalls.append(call) }
            return .zero
        }
    }

    /// Sends the unsent reasoning and text of a reply as one `reasoning` and one `token` event, unless the last went
    /// out less than the coalescing interval ago; `force` (the reply's end) sends at once, with the final tail if one
    /// was held back.
    func emitTokens(of reply: ReplyRun, force: Bool) {
        let interval = settings.coalesceInterval(running: streamingCount)
        reply.publishTokens(to: hub, now: clock.now, interval: interval, force: force)
    }

    /// Sends the reasoning and text received since their last events of the running replies whose coalescing interval
    /// has passed (the coalescing timer's tick).
    func emitDueTokens() {
        for reply in hub.runningReplies {
            emitTokens(of: reply, force: false)
        }
    }

    /// Saves the final state, then sends `error` (if any) and `done`, and releases the conversation.
    func finish(_ reply: ReplyRun, end: StreamEnd) async {
        let job = reply.job
        emitTokens(of: reply, force: true)
        let (text, reasoning, reasoningTime, report) = reply.outcome
        var charged = Self.chargedUsage(
            text: reply.stepText, reasoning: reasoning, reported: report.providerUsage,
            estimatedPrompt: report.estimatedPromptTokens)
        charged += report.earlierUsage
        let model = report.model ?? job.model
        var status: MessageStatus
        var failure: FailureReason?
        switch end {
        case .completed: status = report.isCutAtLimit ? .truncated : .complete
        case .failed(let reason): status = .error; failure = reason
        case .cancelled: status = reply.stopCause == .user ? .stopped : .interrupted
        }
        let outcome = ReplyOutcome(
            content: text, reasoning: reasoning.isEmpty ? nil : reasoning,
            reasoningMilliseconds: reasoningTime.map(Self.milliseconds), status: status,
            usage: charged, failure: failure, pricing: ReplyPricing(model), sources: report.sources,
            documentTokens: report.documentTokens, toolSteps: report.toolSteps)
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
            logger.error(
                "saving a finished reply failed",
                metadata: ["message": "\(job.assistantMessageID)", "error": "\(error)"])
            status = .error
            failure = .notSaved(diskFull: error == .diskFull)
        }
        GenerationMetrics.replyEnded(
            model: model.id, status: status, after: reply.startedAt.duration(to: .now),
            usage: usage)
        if let failure { reply.publish(.error(messageID: job.assistantMessageID, reason: failure), to: hub) }
        let done = StreamEvent.done(
            messageID: job.assistantMessageID, status: status,
            html: DocumentSource.linkingCitations(in: MarkdownRenderer.html(text), to: report.sources), usage: usage,
            reasoningMilliseconds: outcome.reasoningMilliseconds, sources: report.sources)
        reply.end(with: done, in: hub)
        if status == .complete || status == .truncated { await improveTitle(of: job, model: model, answer: text) }
    }

    /// A duration in whole milliseconds, rounded down.
    static func milliseconds(_ duration: Duration) -> Int {
        Int((duration / .milliseconds(1)).rounded(.down))
    }

    /// The provider's token counts when it sent them (the store prices them); else, for a reply with text or
    /// reasoning, an estimate flagged as such, and for one without (failed or stopped before any output) nothing: what
    /// a provider did not report and did not produce is not billed. Reasoning is output: its tokens are part of the
    /// completion's. A provider that counts them without saying how many (Anthropic's thinking, a server that leaves
    /// `<think>` in the text) gets the reasoning text's estimate, within its completion tokens.
    static func chargedUsage(text: String, reasoning: String, reported: Usage?, estimatedPrompt: Int) -> Usage {
        let reasoningTokens = ContextWindow.estimatedTokens(reasoning)
        if var reported {
            if reported.reasoningTokens == 0 {
                reported.reasoningTokens = min(reasoningTokens, reported.completionTokens)
            }
            return reported
        }
        guard !text.isEmpty || !reasoning.isEmpty else { return Usage() }
        return Usage(
            promptTokens: estimatedPrompt, completionTokens: ContextWindow.estimatedTokens(text) + reasoningTokens,
            reasoningTokens: reasoningTokens, estimated: true)
    }
}
