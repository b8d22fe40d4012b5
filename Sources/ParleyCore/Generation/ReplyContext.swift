/// The context a reply sends upstream, built from the conversation without I/O: the system prompt and the turns that
/// fit the model's window, with placeholders for the images a vision model is sent.
enum ReplyContext {
    /// A turn of the context and the message it was made from.
    typealias KeptMessage = (index: Int, message: HistoryMessage)

    /// The system prompt and the conversation's turns trimmed to the model's window (keeping the latest), the images of
    /// a model that sees them as placeholders without bytes, and which turn each kept message became. Synchronous, so
    /// that its values stay off the reply task's frames.
    @inline(never)
    static func fittedTurns(
        systemPrompt: String, history: [HistoryMessage], model: ModelInfo,
        reserve: Int
    ) throws(FailureReason) -> (turns: [ChatTurn], kept: [KeptMessage]) {
        let earlier = history.filter { $0.role != .system && !$0.content.isEmpty }
        // Images count toward the window before their bytes are read; only the kept turns' images are then loaded.
        let turns = earlier.map { message in
            ChatTurn(
                role: message.role, content: message.content,
                images: !model.vision || message.role != .user
                    ? [] : message.attachments.map { TurnImage(contentType: $0.format.contentType, bytes: []) })
        }
        let fitted: [ChatTurn]
        do {
            fitted = try ContextWindow.fit(
                systemPrompt: systemPrompt, history: turns, window: model.contextWindow,
                reserve: reserve)
        } catch {
            throw error.reason
        }
        // The kept turns are the latest ones: the end of `earlier`.
        let keptIndices = fitted.indices.filter { fitted[$0].role != .system }
        return (fitted, zip(keptIndices, earlier.suffix(keptIndices.count)).map { (index: $0, message: $1) })
    }
}
