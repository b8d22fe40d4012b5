import Foundation
import ParleyCore
import ParleyStore
import Testing

/// Images in SQLite: written with their message, read only by their owner, listed with a page of messages, and
/// deleted with the reply or conversation they belong to.
@Suite struct AttachmentStoreTests {
    /// A 1×1 PNG (Pillow's), the smallest real image.
    static func image(_ name: String = "dot.png") throws -> NewImage {
        let bytes = Data(
            base64Encoded:
                "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC")!
        return try NewImage(fileName: name, bytes: [UInt8](bytes))
    }

    @Test(arguments: StoreKind.allCases) func imagesAreWrittenWithTheQuestionAndReadOnlyByTheirOwner(kind: StoreKind)
        async throws
    {
        try await kind.withStores { store in
            let alice = try await store.user("alice@example.com"), bob = try await store.user("bob@example.com")
            let chat = try await store.conversation(alice.id)
            let exchange = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: "look",
                images: [try Self.image("a.png"), try Self.image("b.png")],
                requestID: nil, model: "m")
            let question = try #require(exchange.userMessage)
            #expect(question.attachments.map(\.fileName) == ["a.png", "b.png"])
            #expect(question.attachments.map(\.width) == [1, 1])
            #expect(exchange.history == [HistoryMessage(question)])

            let page = try await store.chats.messages(
                conversationID: chat.id, userID: alice.id, afterID: nil, limit: 10
            ).items
            #expect(page.first?.attachments == question.attachments)
            #expect(page.last?.attachments.isEmpty == true)
            let first = question.attachments[0]
            #expect(try await store.chats.attachment(id: first.id, userID: alice.id)?.bytes == (try Self.image()).bytes)
            #expect(try await store.chats.attachment(id: first.id, userID: bob.id) == nil)
            #expect(try await store.chats.attachmentContents(messageIDs: [question.id], userID: bob.id).isEmpty)
            #expect(
                try await store.chats.attachmentContents(messageIDs: [question.id], userID: alice.id)[question.id]?
                    .count == 2)
            await expectStoreError(.notFound) {
                _ = try await store.chats.addAttachments([try Self.image()], messageID: question.id, userID: bob.id)
            }
            // A later question's history carries the earlier one's images.
            try await store.chats.finishReply(
                id: exchange.assistantMessage.id,
                outcome: ReplyOutcome(content: "seen", status: .complete, usage: Usage()))
            let followUp = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: "and now?", images: [], requestID: nil, model: "m")
            #expect(followUp.history.count == 3)
            #expect(followUp.history.first?.attachments == question.attachments)
        }
    }

    @Test(arguments: StoreKind.allCases) func aRegeneratedReplyAndADeletedConversationTakeTheirImagesAlong(
        kind: StoreKind
    ) async throws {
        try await kind.withStores { store in
            let alice = try await store.user("alice@example.com")
            let chat = try await store.conversation(alice.id)
            let exchange = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: "draw", images: [try Self.image()],
                requestID: nil, model: "m")
            let drawn = try await store.chats.addAttachments(
                [try Self.image("generated.png")], messageID: exchange.assistantMessage.id,
                userID: alice.id)
            #expect(drawn.first?.messageID == exchange.assistantMessage.id)
            try await store.chats.finishReply(
                id: exchange.assistantMessage.id,
                outcome: ReplyOutcome(content: "done", status: .complete, usage: Usage()))
            #expect(try await store.count("SELECT COUNT(*) FROM attachments") == 2)
            try await store.chats.deleteMessage(
                conversationID: chat.id, userID: alice.id, messageID: exchange.assistantMessage.id)
            #expect(try await store.count("SELECT COUNT(*) FROM attachments") == 1)
            try await store.chats.deleteConversation(id: chat.id, userID: alice.id)
            #expect(try await store.count("SELECT COUNT(*) FROM attachments") == 0)
        }
    }
}
