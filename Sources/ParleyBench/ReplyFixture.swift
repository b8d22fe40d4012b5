import Foundation
import MockUpstream
import ParleyCore
import ParleyStore

/// Questions and finished markdown replies written straight into a conversation through the store.
enum ReplyFixture {
    /// A reply's markdown: alternately the mock's 200-word reply and the first ~1.6 KB of its long document
    /// (headings, lists, code, a table).
    static func reply(_ index: Int) -> String {
        index % 2 == 0
            ? MockReply.text(model: "mock-fast", tokens: 200)
            : MockReply.chunks(model: "mock-long", tokens: 0).prefix(400).joined()
    }

    /// Creates a conversation for the user with `email` in `directory`'s database, adds `exchanges` question-and-reply
    /// pairs to it over `branches` branches (each new branch an edit of a question halfway down the current one, the
    /// last written current), and returns its id.
    static func conversation(exchanges: Int, branches: Int = 1, email: String, directory: String) async throws
        -> ConversationID
    {
        let database = try ParleyDatabase(directory: directory)
        defer { try? database.close() }
        guard let user = try await SQLiteAccountStore(database: database).user(email: email) else {
            throw BenchError("no user \(email)")
        }
        let store = SQLiteChatStore(database: database)
        let conversation = try await store.createConversation(
            userID: user.id, title: "Page bench", model: "mock-fast", systemPrompt: "")
        let perBranch = max(1, exchanges / max(1, branches))
        var questions: [MessageID] = []
        for index in 0..<exchanges {
            var anchor = ExchangeAnchor.currentLeaf
            if index > 0, index % perBranch == 0, index / perBranch < branches {
                let edited = questions.count / 2
                anchor = .newVersion(of: questions[edited])
                questions.removeSubrange(edited...)
            }
            let exchange = try await store.beginExchange(
                conversationID: conversation.id, userContent: "Question \(index): explain it?",
                images: [], requestID: nil, model: "mock-fast", anchor: anchor)
            questions.append(exchange.userMessage?.id ?? 0)
            try await store.finishReply(
                id: exchange.assistantMessage.id,
                outcome: ReplyOutcome(content: reply(index), status: .complete, usage: Usage()))
        }
        return conversation.id
    }
}
