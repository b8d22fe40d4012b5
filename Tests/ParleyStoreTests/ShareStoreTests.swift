import Foundation
import GRDB
import ParleyCore
import ParleyStore
import Testing

/// Share links on every database: snapshots are copies, owner actions are scoped, and deleting a conversation takes its links.
@Suite struct ShareStoreTests {
    /// A snapshot of two finished messages at `now`, expiring at `expiresAt`.
    static func content(_ title: String = "Chat", expiresAt: Date? = nil, messages: [Message]? = nil) -> ShareContent {
        let now = Date()
        return ShareContent(
            title: title, model: "m", authorName: nil, expiresAt: expiresAt,
            messages: messages ?? [
                Message(
                    id: 1, conversationID: 1, role: .user, content: "question", status: .complete, model: "m",
                    createdAt: now),
                Message(
                    id: 2, conversationID: 1, role: .assistant, content: "answer", status: .stopped, model: "m",
                    createdAt: now),
            ])
    }

    @Test(arguments: StoreKind.allCases) func aShareIsFoundByItsDigestAndKeepsItsOwnCopyOfTheMessages(kind: StoreKind)
        async throws
    {
        try await kind.withStores { store in
            let shares = store.shares
            let alice = try await store.user("alice@example.com")
            let chat = try await store.conversation(alice.id)
            let share = try await shares.createShare(
                conversationID: chat.id, userID: alice.id, tokenHash: "digest-1",
                content: Self.content(), now: Date())
            let found = try #require(try await shares.share(tokenHash: "digest-1"))
            #expect(
                found.id == share.id && found.userID == alice.id && found.conversationID == chat.id
                    && found.title == "Chat")
            #expect(found.authorName == nil && found.expiresAt == nil && found.views == 0)
            #expect(try await shares.share(tokenHash: "digest-2") == nil)
            let messages = try await shares.messages(shareID: share.id)
            #expect(messages.map(\.content) == ["question", "answer"])
            #expect(messages.map(\.role) == [.user, .assistant])
            #expect(messages.map(\.status) == [.complete, .stopped])
            #expect(messages.allSatisfy { $0.conversationID == chat.id && $0.usage == Usage() })

            try await shares.recordView(shareID: share.id)
            try await shares.recordView(shareID: share.id)
            #expect(try await shares.shares(userID: alice.id).map(\.views) == [2])
        }
    }

    @Test(arguments: StoreKind.allCases) func sharingSomeoneElsesConversationIsNotFoundAndStoresNothing(kind: StoreKind)
        async throws
    {
        try await kind.withStores { store in
            let shares = store.shares
            let alice = try await store.user("alice@example.com")
            let mallory = try await store.user("mallory@example.com")
            let chat = try await store.conversation(alice.id)
            await expectStoreError(.notFound) {
                _ = try await shares.createShare(
                    conversationID: chat.id, userID: mallory.id, tokenHash: "digest",
                    content: Self.content(), now: Date())
            }
            #expect(try await store.count("SELECT COUNT(*) FROM shares") == 0)
            #expect(try await store.count("SELECT COUNT(*) FROM share_messages") == 0)
            #expect(
                try await shares.updateShares(
                    conversationID: chat.id, userID: mallory.id, content: Self.content(), now: Date()) == 0)
        }
    }

    @Test(arguments: StoreKind.allCases) func updatingReplacesTheSnapshotOfLiveSharesOnly(kind: StoreKind) async throws
    {
        try await kind.withStores { store in
            let shares = store.shares
            let alice = try await store.user("alice@example.com")
            let chat = try await store.conversation(alice.id)
            let now = Date()
            let live = try await shares.createShare(
                conversationID: chat.id, userID: alice.id, tokenHash: "live",
                content: Self.content(), now: now)
            let expired = try await shares.createShare(
                conversationID: chat.id, userID: alice.id, tokenHash: "expired",
                content: Self.content(expiresAt: now.addingTimeInterval(60)), now: now)
            let later = now.addingTimeInterval(120)
            let newer = Message(
                id: 9, conversationID: chat.id, role: .user, content: "follow-up", status: .complete, model: "m",
                createdAt: later)
            let updated = try await shares.updateShares(
                conversationID: chat.id, userID: alice.id,
                content: Self.content("Renamed", messages: [newer]), now: later)
            #expect(updated == 1)
            #expect(try await shares.messages(shareID: live.id).map(\.content) == ["follow-up"])
            #expect(try await shares.share(tokenHash: "live")?.title == "Renamed")
            #expect(try await shares.messages(shareID: expired.id).map(\.content) == ["question", "answer"])
            #expect(try await shares.share(tokenHash: "expired")?.title == "Chat")
        }
    }

    @Test(arguments: StoreKind.allCases) func onlyTheOwnerDeletesAShareAndDeletingTheConversationDeletesItsShares(
        kind: StoreKind
    ) async throws {
        try await kind.withStores { store in
            let shares = store.shares
            let alice = try await store.user("alice@example.com")
            let mallory = try await store.user("mallory@example.com")
            let first = try await store.conversation(alice.id)
            let second = try await store.conversation(alice.id)
            let kept = try await shares.createShare(
                conversationID: first.id, userID: alice.id, tokenHash: "a", content: Self.content(), now: Date())
            let revoked = try await shares.createShare(
                conversationID: first.id, userID: alice.id, tokenHash: "b", content: Self.content(), now: Date())
            _ = try await shares.createShare(
                conversationID: second.id, userID: alice.id, tokenHash: "c", content: Self.content(), now: Date())
            await expectStoreError(.notFound) { try await shares.deleteShare(id: revoked.id, userID: mallory.id) }
            #expect(try await shares.shares(userID: alice.id).count == 3)
            try await shares.deleteShare(id: revoked.id, userID: alice.id)
            #expect(try await shares.share(tokenHash: "b") == nil)
            #expect(try await store.count("SELECT COUNT(*) FROM share_messages WHERE share_id = ?", [revoked.id]) == 0)
            try await store.chats.deleteConversation(id: second.id, userID: alice.id)
            #expect(try await shares.shares(userID: alice.id).map(\.id) == [kept.id])
            #expect(try await store.count("SELECT COUNT(*) FROM share_messages") == 2)
        }
    }

    @Test(arguments: StoreKind.allCases) func copyingAShareMakesAConversationOfTheVisitorsWithTheMessagesAnswerLinked(
        kind: StoreKind
    ) async throws {
        try await kind.withStores { store in
            let shares = store.shares
            let alice = try await store.user("alice@example.com")
            let bob = try await store.user("bob@example.com")
            let chat = try await store.conversation(alice.id)
            let share = try await shares.createShare(
                conversationID: chat.id, userID: alice.id, tokenHash: "t",
                content: Self.content("Trip plans"), now: Date())
            let copy = try await shares.copyShare(id: share.id, toUser: bob.id, model: "other", now: Date())
            #expect(
                copy.userID == bob.id && copy.title == "Trip plans" && copy.model == "other"
                    && copy.systemPrompt.isEmpty)
            let messages = try await store.chats.messages(
                conversationID: copy.id, userID: bob.id, afterID: nil, limit: 10
            ).items
            #expect(messages.map(\.content) == ["question", "answer"])
            #expect(messages[1].parentID == messages[0].id)
            #expect(messages.allSatisfy { $0.usage == Usage() && $0.requestID == nil })
            #expect(try await store.chats.conversation(id: copy.id, userID: alice.id) == nil)
            try await shares.deleteShare(id: share.id, userID: alice.id)
            await expectStoreError(.notFound) {
                _ = try await shares.copyShare(id: share.id, toUser: bob.id, model: "m", now: Date())
            }
        }
    }
}
