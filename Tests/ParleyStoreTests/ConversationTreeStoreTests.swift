import Foundation
import GRDB
import ParleyCore
import Testing

@testable import ParleyStore

extension StoreKind.Stores {
    /// Ends an exchange's reply as complete with `content`.
    func finish(_ exchange: Exchange, _ content: String) async throws {
        try await chats.finishReply(
            id: exchange.assistantMessage.id, outcome: ReplyOutcome(content: content, status: .complete, usage: Usage())
        )
    }

    /// Writes a question (none for a new reply to `anchor`'s question) and its reply, ended complete with `answer`.
    @discardableResult
    func exchange(
        _ conversationID: ConversationID, _ question: String?, _ answer: String, anchor: ExchangeAnchor = .currentLeaf
    ) async throws -> Exchange {
        let exchange = try await chats.beginExchange(
            conversationID: conversationID, userContent: question, images: [], requestID: nil, model: "m",
            anchor: anchor)
        try await finish(exchange, answer)
        return exchange
    }

    /// The text of the conversation's current branch, oldest first.
    func branch(_ conversationID: ConversationID, _ userID: UserID) async throws -> [String] {
        try await chats.messages(conversationID: conversationID, userID: userID, afterID: nil, limit: .max).items.map(
            \.content)
    }
}

/// Conversations as trees in SQLite: versions of a question or a reply, the branch shown, and the migration of
/// conversations written before trees.
@Suite("Conversation trees in the store")
struct ConversationTreeStoreTests {
    @Test(
        "an edit is a sibling of the question with the same history; the new branch becomes current, the old stays",
        arguments: StoreKind.allCases)
    func editsAreSiblings(kind: StoreKind) async throws {
        try await kind.withStores { store in
            let alice = try await store.user("alice@example.com")
            let chat = try await store.conversation(alice.id)
            _ = try await store.exchange(chat.id, "q1", "a1")
            let two = try await store.exchange(chat.id, "q2", "a2")
            let question = try #require(two.userMessage)

            let edited = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: "q2 edited", images: [], requestID: nil, model: "m",
                anchor: .newVersion(of: question.id))
            #expect(edited.userMessage?.parentID == question.parentID)
            // The reply to the edit answers the path to it, never the other branch's text.
            #expect(edited.history.map(\.content) == ["q1", "a1", "q2 edited"])
            try await store.finish(edited, "a2 edited")
            #expect(try await store.branch(chat.id, alice.id) == ["q1", "a1", "q2 edited", "a2 edited"])

            let shown = try await store.chats.messages(
                conversationID: chat.id, userID: alice.id, afterID: nil, limit: .max
            ).items
            #expect(
                shown[2].versions
                    == MessageVersions(index: 2, count: 2, previous: question.id, next: nil))
            #expect(shown[0].versions == MessageVersions())

            // Walking back to the first version shows its branch down to its leaf, and it is stored.
            let leaf = try await store.chats.selectBranch(
                conversationID: chat.id, userID: alice.id, messageID: question.id)
            #expect(leaf == two.assistantMessage.id)
            #expect(try await store.branch(chat.id, alice.id) == ["q1", "a1", "q2", "a2"])
            #expect(try await store.chats.conversation(id: chat.id, userID: alice.id)?.currentLeafID == leaf)
            let all = try await store.chats.messages(
                conversationID: chat.id, userID: alice.id, branch: .all, afterID: nil, limit: .max)
            #expect(all.items.count == 6)
        }
    }

    @Test(
        "a new reply is a sibling of the earlier ones; a follow-up goes under the current leaf",
        arguments: StoreKind.allCases)
    func regeneratedRepliesAreSiblings(kind: StoreKind) async throws {
        try await kind.withStores { store in
            let alice = try await store.user("alice@example.com")
            let chat = try await store.conversation(alice.id)
            let first = try await store.exchange(chat.id, "q", "a")
            let question = try #require(first.userMessage)
            let second = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: nil, images: [], requestID: nil, model: "m",
                anchor: .reply(to: question.id))
            try await store.finish(second, "b")
            // Without an anchor, no question: the current leaf's question is answered again.
            let third = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: nil, requestID: nil, model: "m")
            try await store.finish(third, "c")
            #expect(
                [second, third].allSatisfy { $0.assistantMessage.parentID == question.id && $0.history.count == 1 })
            let shown = try await store.chats.messages(
                conversationID: chat.id, userID: alice.id, afterID: nil, limit: .max
            ).items
            #expect(shown.map(\.content) == ["q", "c"])
            #expect(shown[1].versions.index == 3 && shown[1].versions.count == 3)

            let followUp = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: "more", requestID: nil, model: "m")
            #expect(followUp.userMessage?.parentID == third.assistantMessage.id)
            #expect(followUp.history.map(\.content) == ["q", "c", "more"])
        }
    }

    @Test(
        "an anchor that is not a question of this conversation is refused and nothing is written",
        arguments: StoreKind.allCases)
    func foreignAnchorsAreRefused(kind: StoreKind) async throws {
        try await kind.withStores { store in
            let alice = try await store.user("alice@example.com")
            let chat = try await store.conversation(alice.id)
            let other = try await store.conversation(alice.id)
            let mine = try await store.exchange(chat.id, "q", "a")
            let question = try #require(mine.userMessage)
            let before = try await store.count("SELECT COUNT(*) FROM messages")
            for anchor in [
                ExchangeAnchor.newVersion(of: question.id), .reply(to: question.id),
            ] {
                await expectStoreError(.notFound) {
                    _ = try await store.chats.beginExchange(
                        conversationID: other.id, userContent: anchor == .reply(to: question.id) ? nil : "x",
                        images: [], requestID: nil, model: "m", anchor: anchor)
                }
            }
            await expectStoreError(.notFound) {
                _ = try await store.chats.beginExchange(
                    conversationID: chat.id, userContent: "x", images: [], requestID: nil, model: "m",
                    anchor: .newVersion(of: mine.assistantMessage.id))
            }
            await expectStoreError(.notFound) {
                _ = try await store.chats.beginExchange(
                    conversationID: chat.id, userContent: nil, images: [], requestID: nil, model: "m",
                    anchor: .reply(to: mine.assistantMessage.id))
            }
            await expectStoreError(.notFound) {
                _ = try await store.chats.selectBranch(
                    conversationID: other.id, userID: alice.id, messageID: question.id)
            }
            #expect(try await store.count("SELECT COUNT(*) FROM messages") == before)
            #expect(try await store.branch(chat.id, alice.id) == ["q", "a"])
        }
    }

    @Test("the migration to trees chains each conversation's messages and makes its last one current")
    func migrationMakesOneBranchTrees() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("parley-tree-migration-" + UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // A database as the release before trees wrote it: questions without a parent, replies under their question.
        let old = try DatabasePool(path: directory + "/parley.sqlite")
        try Migrations.migrator.migrate(old, upTo: "v8: the estimated part of usage, and titles' usage")
        try await old.write { db in
            try db.execute(
                sql: """
                    INSERT INTO users (id, email, password_hash, is_admin, created_at) VALUES (1, 'a@example.com', 'h', 0, '2026-01-01 00:00:00.000');
                    INSERT INTO conversations (id, user_id, title, model, created_at, updated_at)
                        VALUES (1, 1, 'One', 'm', '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000'),
                               (2, 1, 'Two', 'm', '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000'),
                               (3, 1, 'Empty', 'm', '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000');
                    INSERT INTO messages (id, conversation_id, role, content, status, model, parent_id, created_at, updated_at) VALUES
                        (1, 1, 'user', 'q1', 'complete', 'm', NULL, '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000'),
                        (2, 2, 'user', 'other', 'complete', 'm', NULL, '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000'),
                        (3, 1, 'assistant', 'a1', 'complete', 'm', 1, '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000'),
                        (4, 1, 'user', 'q2', 'complete', 'm', NULL, '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000'),
                        (5, 1, 'assistant', 'a2', 'complete', 'm', 4, '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000');
                    """)
        }
        try old.close()

        let database = try ParleyDatabase(directory: directory)
        let parents = try await database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT id, parent_id FROM messages ORDER BY id").map {
                [$0[0] as Int64, ($0[1] as Int64?) ?? 0]
            }
        }
        #expect(parents == [[1, 0], [2, 0], [3, 1], [4, 3], [5, 4]])
        let store = SQLiteChatStore(database: database)
        #expect(try await store.conversation(id: 1, userID: 1)?.currentLeafID == 5)
        #expect(try await store.conversation(id: 2, userID: 1)?.currentLeafID == 2)
        #expect(try await store.conversation(id: 3, userID: 1)?.currentLeafID == nil)
        let branch = try await store.messages(conversationID: 1, userID: 1, afterID: nil, limit: .max).items
        #expect(branch.map(\.content) == ["q1", "a1", "q2", "a2"])
        let next = try await store.beginExchange(conversationID: 1, userContent: "q3", requestID: nil, model: "m")
        #expect(next.history.map(\.content) == ["q1", "a1", "q2", "a2", "q3"])
    }

    @Test(
        "deleting a message deletes everything under it; the branch of its parent becomes current",
        arguments: StoreKind.allCases)
    func deletingAMessageDeletesItsSubtree(kind: StoreKind) async throws {
        try await kind.withStores { store in
            let alice = try await store.user("alice@example.com")
            let chat = try await store.conversation(alice.id)
            let one = try await store.exchange(chat.id, "q1", "a1")
            let two = try await store.exchange(chat.id, "q2", "a2")
            let other = try await store.exchange(
                chat.id, "q2 again", "a2 again", anchor: .newVersion(of: try #require(two.userMessage).id))

            try await store.chats.deleteMessage(
                conversationID: chat.id, userID: alice.id, messageID: try #require(other.userMessage).id)
            // The deleted branch was current: its parent's newest branch shows instead.
            #expect(try await store.branch(chat.id, alice.id) == ["q1", "a1", "q2", "a2"])
            try await store.chats.deleteMessage(
                conversationID: chat.id, userID: alice.id, messageID: try #require(one.userMessage).id)
            #expect(try await store.branch(chat.id, alice.id).isEmpty)
            #expect(try await store.count("SELECT COUNT(*) FROM messages WHERE conversation_id = ?", [chat.id]) == 0)
            await expectStoreError(.notFound) {
                try await store.chats.deleteMessage(
                    conversationID: chat.id, userID: alice.id, messageID: one.assistantMessage.id)
            }
        }
    }
}
