import ParleyJSON
import Synchronization

extension GenerationManager {
    /// The instruction sent with a title request.
    static let titleInstruction = """
        Write a title of at most six words for the conversation below. Answer with the title only: no quotes, \
        no punctuation at the end, no markdown.
        """

    /// The most tokens a title's answer may take: six words, and room for a model that adds a few.
    static let titleMaxTokens = 20

    /// Asks the reply's model for a short title of a conversation's first exchange and puts it in place of the
    /// provisional one, unless the user renamed the conversation meanwhile; any failure keeps the provisional title.
    /// The answer is capped at `titleMaxTokens` and read only to its first line; it is not asked for once the user has
    /// sent again, and is given up when they send while it runs. Its usage is charged to the conversation, as a
    /// title's.
    func improveTitle(of job: GenerationJob, model: ModelInfo, answer: String) async {
        guard settings.modelTitles, !model.generatesImages, let provisional = job.provisionalTitle,
            model.providerID != ModelInfo.demoProviderID,
            let provider = catalog.provider(for: model),
            let question = try? await store.messages(
                conversationID: job.conversationID, userID: job.userID,
                afterID: nil, limit: 1
            ).items.first?.content
        else { return }
        let (interruption, interrupt) = AsyncStream.makeStream(of: Never.self)
        guard let titleID = hub.beginTitle(in: job.conversationID, interrupt: interrupt) else { return }
        defer { hub.endTitle(titleID, in: job.conversationID) }
        let request = CompletionRequest(
            model: model.upstreamID,
            turns: [
                ChatTurn(role: .system, content: Self.titleInstruction),
                ChatTurn(role: .user, content: String(question.prefix(2000))),
                ChatTurn(role: .assistant, content: String(answer.prefix(2000))),
                ChatTurn(role: .user, content: "Title?"),
            ], maxTokens: Self.titleMaxTokens, stop: ["\n"])
        let collected = CollectedText()
        let line = await firstLine(
            of: request, from: provider, into: collected, interruptedBy: interruption, conversation: job.conversationID)
        await charge(collected, of: request, to: job.conversationID, model: model)
        guard let line, let title = ConversationTitle.fromModel(line), title != provisional else { return }
        do {
            if try await store.retitleConversation(
                id: job.conversationID, userID: job.userID, from: provisional, to: title)
            {
                announceTitle(title, conversationID: job.conversationID)
            }
        } catch {
            logger.warning(
                "saving a title failed", metadata: ["conversation": "\(job.conversationID)", "error": "\(error)"])
        }
    }

    /// Tells the conversation's open event streams its new title: a `title` event, `{"conversation_id","title"}`,
    /// without an `id:` (a stream that reconnects reads the title from the page instead).
    public func announceTitle(_ title: String, conversationID: ConversationID) {
        var data = JSONText()
        data.field("conversation_id", conversationID)
        data.field("title", title)
        let frame = "event: title\ndata: \(data.result)\n\n"
        hub.announceTitle(frame, in: conversationID)
        hub.relay?.publishTitle(frame, conversationID: conversationID)
    }

    /// The text of `provider`'s answer (its reasoning left out) up to its first line: the request is closed as soon as
    /// a line is read, or when `interruption` ends; nil when the request failed or was interrupted before a line.
    private func firstLine(
        of request: CompletionRequest, from provider: any ChatProvider, into collected: CollectedText,
        interruptedBy interruption: AsyncStream<Never>, conversation: ConversationID
    ) async -> String? {
        let (lineEnds, lineEnded) = AsyncStream.makeStream(of: Never.self)
        return await withTaskGroup(of: String?.self) { group in
            group.addTask {
                do {
                    try await provider.streamCompletion(request) { chunk in
                        switch chunk {
                        case .text(let text): if collected.append(text) { lineEnded.finish() }
                        case .usage(let prompt, let completion, let cached, let reasoning):
                            collected.report(
                                Usage(
                                    promptTokens: prompt, cachedPromptTokens: cached, completionTokens: completion,
                                    reasoningTokens: reasoning))
                        case .reasoning, .cutAtLimit, .toolCall: break
                        }
                        return .zero
                    }
                    return collected.text
                } catch {
                    self.logger.info(
                        "asking for a title failed", metadata: ["conversation": "\(conversation)", "error": "\(error)"])
                    return nil
                }
            }
            group.addTask {
                for await _ in lineEnds {}
                return Task.isCancelled ? nil : collected.text
            }
            group.addTask {
                for await _ in interruption {}
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Charges what a title request used: the provider's report, else (for a request that produced text) an estimate;
    /// nothing for one that produced nothing unreported.
    private func charge(
        _ collected: CollectedText, of request: CompletionRequest, to conversation: ConversationID,
        model: ModelInfo
    ) async {
        let text = collected.text
        let usage =
            collected.reported
            ?? Usage(
                promptTokens: request.turns.reduce(0) { $0 + ContextWindow.estimatedTokens($1) },
                completionTokens: ContextWindow.estimatedTokens(text), estimated: true)
        guard collected.reported != nil || !text.isEmpty else { return }
        // Charged even while a shutdown cancels the title's task: the provider was paid.
        let failure: StoreError? = await uncancelled { [store] in
            do throws(StoreError) {
                try await store.chargeTitle(conversationID: conversation, usage: usage, pricing: ReplyPricing(model))
                return nil
            } catch {
                return error
            }
        }
        if let failure {
            logger.warning(
                "charging a title failed", metadata: ["conversation": "\(conversation)", "error": "\(failure)"])
        }
    }
}

/// Text and usage gathered from a provider's chunks.
private final class CollectedText: Sendable {
    private let gathered = Mutex("")
    private let usage = Mutex<Usage?>(nil)

    /// The text so far.
    var text: String { gathered.withLock { $0 } }

    /// The usage the provider reported, if it did.
    var reported: Usage? { usage.withLock { $0 } }

    /// Keeps the usage the provider reported.
    func report(_ reported: Usage) {
        usage.withLock { $0 = reported }
    }

    /// Adds a chunk's text; returns whether the text now holds a whole line.
    func append(_ more: String) -> Bool {
        gathered.withLock { text in
            text += more
            return text.contains("\n")
        }
    }
}
