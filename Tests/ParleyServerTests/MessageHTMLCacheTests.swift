import Foundation
import ParleyCore
import Testing

@testable import ParleyServer

/// The cache of finished messages' HTML: what it keeps, when it renders again, and how much it holds.
@Suite struct MessageHTMLCacheTests {
    /// A reply with `content` and `status`, in `conversation`.
    static func reply(
        _ id: MessageID, _ content: String, status: MessageStatus = .complete, conversation: ConversationID = 1
    ) -> Message {
        Message(
            id: id, conversationID: conversation, role: .assistant, content: content, status: status,
            model: "mock-fast",
            createdAt: Date(timeIntervalSince1970: 1_700_000_000))
    }

    @Test("a finished message is kept and served as rendered; a reply still streaming is never kept")
    func keepsFinishedOnly() {
        let cache = MessageHTMLCache()
        let finished = Self.reply(1, "**bold** text")
        #expect(cache.html(finished) == MessageView.html(finished))
        #expect(cache.isKept(1))
        #expect(cache.html(finished) == MessageView.html(finished))
        let streaming = Self.reply(2, "half a repl", status: .streaming)
        #expect(cache.html(streaming) == MessageView.html(streaming))
        #expect(!cache.isKept(2))
        #expect(cache.keptBytes == MessageView.html(finished).utf8.count)
    }

    @Test("a kept message whose status or text has changed since is rendered again, and the new HTML replaces the old")
    func rendersAgainWhenChanged() {
        let cache = MessageHTMLCache()
        _ = cache.html(Self.reply(1, "first words", status: .stopped))
        let finished = Self.reply(1, "first words and the rest", status: .complete)
        #expect(cache.html(finished) == MessageView.html(finished))
        let sameLengthOtherStatus = Self.reply(1, "first words and the rest", status: .error)
        #expect(cache.html(sameLengthOtherStatus) == MessageView.html(sameLengthOtherStatus))
        #expect(cache.keptBytes == MessageView.html(sameLengthOtherStatus).utf8.count)
    }

    @Test("the oldest messages go once the budget is full, and the HTML kept never exceeds it")
    func evictsOldestWithinBudget() {
        let size = MessageView.html(Self.reply(5_000, "x")).utf8.count  // every id from 1,000 on has four digits
        let cache = MessageHTMLCache(budgetBytes: size * 10 + size / 2)
        for id in 1...5_000 as ClosedRange<MessageID> {
            _ = cache.html(Self.reply(id, "x"))
            #expect(cache.keptBytes <= cache.budgetBytes)
        }
        #expect(!cache.isKept(4_990))
        #expect((4_991...5_000).allSatisfy(cache.isKept))
    }

    @Test("a deleted conversation's messages are forgotten at once; the others stay kept and still go oldest first")
    func forgetsDeletedConversation() {
        let size = MessageView.html(Self.reply(1, "x")).utf8.count
        let cache = MessageHTMLCache(budgetBytes: size * 3)
        for (id, conversation) in [(1, 1), (2, 2), (3, 2)] as [(MessageID, ConversationID)] {
            _ = cache.html(Self.reply(id, "x", conversation: conversation))
        }
        cache.forget(conversation: 2)
        #expect(cache.isKept(1) && !cache.isKept(2) && !cache.isKept(3))
        #expect(cache.keptBytes == size)
        for id in 4...6 as ClosedRange<MessageID> { _ = cache.html(Self.reply(id, "x")) }
        #expect(!cache.isKept(1))
        #expect((4...6).allSatisfy(cache.isKept))
    }
}
