import Synchronization

extension GenerationManager {
    /// The instruction sent with a title request.
    static let titleInstruction = """
        Write a title of at most six words for the conversation below. Answer with the title only: no quotes, \
        no punctuation at the end, no markdown.
        """

    /// Asks the reply's model for a short title of a conversation's first exchange and puts it in place of the
    /// provisional one, unless the user renamed the conversation meanwhile; any failure keeps the provisional title.
    func improveTitle(of job: GenerationJob, model: ModelInfo, answer: String) async {
        guard settings.modelTitles, !model.generatesImages, let provisional = job.provisionalTitle,
              model.providerID != ModelInfo.demoProviderID,
              let provider = catalog.provider(for: model),
              let question = try? await store.messages(conversationID: job.conversationID, userID: job.userID,
                                                       afterID: nil, limit: 1).items.first?.content else { return }
        let request = CompletionRequest(model: model.upstreamID, turns: [
            ChatTurn(role: .system, content: Self.titleInstruction),
            ChatTurn(role: .user, content: String(question.prefix(2000))),
            ChatTurn(role: .assistant, content: String(answer.prefix(2000))),
            ChatTurn(role: .user, content: "Title?"),
        ])
        let collected = CollectedText()
        do {
            try await provider.streamCompletion(request) { chunk in
                if case .text(let text) = chunk { collected.append(text) }
                return .zero
            }
        } catch {
            logger.info("asking for a title failed", metadata: ["conversation": "\(job.conversationID)", "error": "\(error)"])
            return
        }
        guard let title = ConversationTitle.fromModel(collected.text), title != provisional else { return }
        do {
            _ = try await store.retitleConversation(id: job.conversationID, userID: job.userID, from: provisional, to: title)
        } catch {
            logger.warning("saving a title failed", metadata: ["conversation": "\(job.conversationID)", "error": "\(error)"])
        }
    }
}

/// Text gathered from a provider's chunks.
private final class CollectedText: Sendable {
    private let gathered = Mutex("")

    /// The text so far.
    var text: String { gathered.withLock { $0 } }

    /// Adds a chunk's text.
    func append(_ more: String) {
        gathered.withLock { $0 += more }
    }
}
