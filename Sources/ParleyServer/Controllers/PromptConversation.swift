import ParleyCore

extension ChatService {
    /// A new conversation of the user's whose first message is `text` (a filled prompt), its reply started, on `model`
    /// (nil: the default). When the send is refused (a budget spent, the server busy) the conversation is deleted again.
    func startConversation(
        userID: UserID, firstMessage text: String, model: String?, receivedAt: ContinuousClock.Instant
    ) async throws(ChatError) -> (Conversation, SendResult) {
        let conversation = try await createConversation(userID: userID, title: nil, model: model, systemPrompt: nil)
        do {
            let sent = try await send(
                userID: userID, conversationID: conversation.id, content: text, model: nil, requestID: nil,
                receivedAt: receivedAt)
            return (conversation, sent)
        } catch {
            try? await delete(userID: userID, conversationID: conversation.id)
            throw error
        }
    }
}
