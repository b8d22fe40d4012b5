import Foundation
import GRDB
import ParleyCore
import Testing

@testable import ParleyStore

/// A reply's reasoning in storage: saved while it streams and when it ends, apart from its text, out of the search
/// index and of the next reply's context, counted in its owner's stored bytes; its tokens in the reply and the rollup.
@Suite struct ReasoningStoreTests {
    static let rates = TokenRates(input: 1_000_000, output: 2_000_000)

    @Test(
        "progress saves and the final save keep the reasoning apart from the text; a reply without any stores NULL",
        arguments: StoreKind.allCases)
    func savedApartFromTheText(kind: StoreKind) async throws {
        try await kind.withStores { store in
            let alice = try await store.user("alice@example.com")
            let conversation = try await store.conversation(alice.id)
            let exchange = try await store.chats.beginExchange(
                conversationID: conversation.id, userContent: "why?", requestID: nil, model: "m")
            let id = exchange.assistantMessage.id
            try await store.chats.saveProgress([id: ReplyProgress(content: "", reasoning: "thinking so far")])
            var saved = try #require(try await store.chats.message(id: id, userID: alice.id))
            #expect(saved.content == "" && saved.reasoning == "thinking so far")
            try await store.chats.finishReply(
                id: id,
                outcome: ReplyOutcome(
                    content: "Because.", reasoning: "thinking, then done", status: .complete,
                    usage: Usage(completionTokens: 30, reasoningTokens: 25)))
            saved = try #require(try await store.chats.message(id: id, userID: alice.id))
            #expect(saved.content == "Because." && saved.reasoning == "thinking, then done")
            #expect(saved.usage.reasoningTokens == 25 && saved.usage.completionTokens == 30)
            let question = try #require(
                try await store.chats.message(id: exchange.userMessage?.id ?? 0, userID: alice.id))
            #expect(question.reasoning == nil)
            let (_, plain) = try await store.exchange(conversation, "and?", "Plain.")
            #expect(try await store.chats.message(id: plain, userID: alice.id)?.reasoning == nil)
        }
    }

    @Test(
        "reasoning is never searched, and the next reply's history holds the answers' text only",
        arguments: StoreKind.allCases)
    func notSearchedNorSentBack(kind: StoreKind) async throws {
        try await kind.withStores { store in
            let alice = try await store.user("alice@example.com")
            let conversation = try await store.conversation(alice.id)
            let first = try await store.chats.beginExchange(
                conversationID: conversation.id, userContent: "q", requestID: nil, model: "m")
            try await store.chats.finishReply(
                id: first.assistantMessage.id,
                outcome: ReplyOutcome(
                    content: "visible answer", reasoning: "zanzibar pondering", status: .complete, usage: Usage()))
            #expect(try await store.chats.search(userID: alice.id, text: "zanzibar", limit: 10).isEmpty)
            #expect(try await store.chats.search(userID: alice.id, text: "visible", limit: 10).count == 1)
            try await store.checkSearchIndexes()
            let second = try await store.chats.beginExchange(
                conversationID: conversation.id, userContent: "next", requestID: nil, model: "m")
            #expect(second.history.map(\.content) == ["q", "visible answer", "next"])
        }
    }

    @Test(
        "the reasoning counts in its owner's stored bytes once the reply ends, and leaves with it",
        arguments: StoreKind.allCases)
    func countedInStoredBytes(kind: StoreKind) async throws {
        try await kind.withStores { store in
            let alice = try await store.user("alice@example.com")
            let conversation = try await store.conversation(alice.id)
            let exchange = try await store.chats.beginExchange(
                conversationID: conversation.id, userContent: "q", requestID: nil, model: "m")
            try await store.chats.saveProgress([
                exchange.assistantMessage.id: ReplyProgress(content: "a", reasoning: "r")
            ])
            #expect(try await store.admin.storage(userID: alice.id).storedBytes == 1)
            try await store.chats.finishReply(
                id: exchange.assistantMessage.id,
                outcome: ReplyOutcome(content: "ab", reasoning: "ré", status: .complete, usage: Usage()))
            // "q" + "ab" + "ré" (3 bytes).
            #expect(try await store.admin.storage(userID: alice.id).storedBytes == 6)
            try await store.chats.deleteMessage(
                conversationID: conversation.id, userID: alice.id, messageID: exchange.assistantMessage.id)
            #expect(try await store.admin.storage(userID: alice.id).storedBytes == 1)
            let again = try await store.chats.beginExchange(
                conversationID: conversation.id, userContent: nil, images: [], requestID: nil, model: "m",
                anchor: .reply(to: try #require(exchange.userMessage).id))
            try await store.chats.finishReply(
                id: again.assistantMessage.id,
                outcome: ReplyOutcome(content: "c", reasoning: "long thoughts", status: .complete, usage: Usage()))
            try await store.chats.deleteConversation(id: conversation.id, userID: alice.id)
            #expect(try await store.admin.storage(userID: alice.id).storedBytes == 0)
        }
    }

    @Test(
        "reasoning tokens are output tokens: priced as such, and summed in the rollup apart",
        arguments: StoreKind.allCases)
    func reasoningTokensArePricedAsOutputAndRolledUp(kind: StoreKind) async throws {
        try await kind.withStores { store in
            let alice = try await store.user("alice@example.com")
            let conversation = try await store.conversation(alice.id)
            let exchange = try await store.chats.beginExchange(
                conversationID: conversation.id, userContent: "q", requestID: nil, model: "m")
            let charged = try await store.chats.finishReply(
                id: exchange.assistantMessage.id,
                outcome: ReplyOutcome(
                    content: "a", reasoning: "r", status: .complete,
                    usage: Usage(promptTokens: 100, completionTokens: 400, reasoningTokens: 300),
                    pricing: ReplyPricing(modelID: "m", providerID: "p", listRates: Self.rates)))
            // 100 × $1 + 400 × $2 per million: the 300 reasoning tokens are in the 400.
            #expect(charged.costMicros == 100 + 800)
            #expect(charged.reasoningTokens == 300)
            let today = UsageDay(Date())
            let period = try #require(UsagePeriod(from: today, to: today))
            let usage = store.usage
            let dashboard = try await usage.dashboard(period: period, sort: .cost, userLimit: 10)
            #expect(dashboard.totals.reasoningTokens == 300 && dashboard.totals.outputTokens == 400)
            #expect(dashboard.users.first?.totals.reasoningTokens == 300)
            #expect(dashboard.users.first?.email == "alice@example.com")
            #expect(try await usage.records(period: period).map(\.totals.reasoningTokens) == [300])
            let report = try await usage.userReport(userID: alice.id, period: period, conversationLimit: 5)
            #expect(report.totals.reasoningTokens == 300)
        }
    }

    @Test("an import keeps each reply's reasoning, its time and its tokens", arguments: StoreKind.allCases)
    func importKeepsReasoning(kind: StoreKind) async throws {
        try await kind.withStores { store in
            let alice = try await store.user("alice@example.com")
            let now = Date()
            let conversation = Conversation(
                id: 0, userID: 0, title: "Imported", model: "m", systemPrompt: "", createdAt: now, updatedAt: now)
            let messages = [
                Message(
                    id: 1, conversationID: 0, role: .user, content: "q", status: .complete, model: "m", createdAt: now),
                Message(
                    id: 2, conversationID: 0, role: .assistant, content: "a", reasoning: "because",
                    reasoningMilliseconds: 1_500, status: .complete, model: "m", parentID: 1,
                    usage: Usage(completionTokens: 9, reasoningTokens: 7), createdAt: now),
            ]
            let imported = try await store.chats.importTranscripts(
                [ConversationTranscript(conversation: conversation, messages: messages)], userID: alice.id)
            let page = try await store.chats.messages(
                conversationID: try #require(imported.first).id, userID: alice.id, afterID: nil, limit: 10)
            #expect(page.items.map(\.reasoning) == [nil, "because"])
            #expect(page.items.map(\.reasoningMilliseconds) == [nil, 1_500])
            #expect(page.items.last?.usage.reasoningTokens == 7)
            #expect(try await store.admin.storage(userID: alice.id).storedBytes == 1 + 1 + 7)
        }
    }

    @Test(
        "migration v11: replies and shares stored before keep no reasoning time and no shared reasoning; new replies store their time"
    )
    func reasoningTimeMigration() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("parley-reasoning-time-" + UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // A database as the release with reasoning but without its time wrote it: a reply that reasoned, and its share.
        let old = try DatabasePool(path: directory + "/parley.sqlite")
        try Migrations.migrator.migrate(old, upTo: "v10: reasoning")
        let at = "'2026-01-01 00:00:00.000'"
        try await old.write { db in
            try db.execute(
                sql: """
                    INSERT INTO users (id, email, password_hash, is_admin, created_at) VALUES (1, 'a@example.com', 'h', 0, \(at));
                    INSERT INTO conversations (id, user_id, title, model, created_at, updated_at) VALUES (1, 1, 'One', 'm', \(at), \(at));
                    INSERT INTO messages (id, conversation_id, role, content, reasoning, status, model, parent_id, created_at, updated_at)
                        VALUES (1, 1, 'user', 'q', NULL, 'complete', 'm', NULL, \(at), \(at)),
                               (2, 1, 'assistant', 'a', 'pondered', 'complete', 'm', 1, \(at), \(at));
                    INSERT INTO shares (id, token_hash, user_id, conversation_id, title, model, created_at, snapshot_at)
                        VALUES (1, 'digest', 1, 1, 'One', 'm', \(at), \(at));
                    INSERT INTO share_messages (share_id, position, role, content, status, model, created_at)
                        VALUES (1, 0, 'user', 'q', 'complete', 'm', \(at)), (1, 1, 'assistant', 'a', 'complete', 'm', \(at));
                    """)
        }
        try old.close()

        let database = try ParleyDatabase(directory: directory)
        let chats = SQLiteChatStore(database: database)
        let before = try #require(try await chats.message(id: 2, userID: 1))
        #expect(before.reasoning == "pondered" && before.reasoningMilliseconds == nil)
        let shares = SQLiteShareStore(database: database)
        let share = try #require(try await shares.share(tokenHash: "digest"))
        #expect(!share.includesReasoning)
        #expect(try await shares.messages(shareID: 1).map(\.reasoning) == [nil, nil])

        let exchange = try await chats.beginExchange(
            conversationID: 1, userContent: "again?", requestID: nil, model: "m")
        try await chats.finishReply(
            id: exchange.assistantMessage.id,
            outcome: ReplyOutcome(
                content: "Yes.", reasoning: "thought again", reasoningMilliseconds: 2_345, status: .complete,
                usage: Usage()))
        let after = try #require(try await chats.message(id: exchange.assistantMessage.id, userID: 1))
        #expect(after.reasoning == "thought again" && after.reasoningMilliseconds == 2_345)
        #expect(try await chats.message(id: 2, userID: 1)?.reasoningMilliseconds == nil)
    }
}
