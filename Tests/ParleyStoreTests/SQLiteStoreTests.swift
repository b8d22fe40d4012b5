import Foundation
import GRDB
import ParleyCore
import ParleyStore
import Synchronization
import Testing

/// A fresh SQLite database in its own temp folder, with both stores over it.
struct StoreFixture {
    let directory: String
    let database: ParleyDatabase
    let accounts: SQLiteAccountStore
    let chats: SQLiteChatStore

    /// Opens a database in a new temp folder, runs `body`, and removes the folder.
    static func run(_ body: (StoreFixture) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("parley-store-test-" + UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try ParleyDatabase(directory: directory)
        let fixture = StoreFixture(
            directory: directory, database: database,
            accounts: SQLiteAccountStore(database: database), chats: SQLiteChatStore(database: database))
        try await body(fixture)
    }

    /// Creates a user with a throwaway hash.
    func user(_ email: String) async throws -> User {
        try await accounts.createUser(email: email, passwordHash: "hash", isAdmin: false)
    }

    /// Creates a conversation owned by `userID`.
    func conversation(_ userID: UserID, title: String = "Chat") async throws -> Conversation {
        try await chats.createConversation(userID: userID, title: title, model: "m", systemPrompt: "be brief")
    }

    /// Counts rows with raw SQL.
    func count(_ sql: String, _ arguments: StatementArguments = []) async throws -> Int {
        try await database.pool.read { db in try Int.fetchOne(db, sql: sql, arguments: arguments) ?? -1 }
    }

    /// Waits until the wall clock, which the store reads for its timestamps, has reached the next stored millisecond
    /// (rounded as `StoredDate` rounds), so that the next stored timestamp differs from every earlier one.
    static func tick() async throws {
        let millisecond = { (Date().timeIntervalSince1970 * 1000 + 0.5).rounded(.down) }
        let start = millisecond(), deadline = ContinuousClock.now + .seconds(1)
        while millisecond() <= start {
            try #require(ContinuousClock.now < deadline, "the wall clock did not move on")
            try await Task.sleep(for: .microseconds(200))
        }
    }
}

/// Counts the committed transactions that changed `messages`.
final class MessageCommits: TransactionObserver, Sendable {
    private let commits = Mutex(0)
    /// How many have committed so far.
    var count: Int { commits.withLock { $0 } }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { eventKind.tableName == "messages" }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { commits.withLock { $0 += 1 } }
    func databaseDidRollback(_ db: Database) {}
}

/// Expects `body` to throw exactly `expected`.
func expectStoreError(
    _ expected: StoreError, _ body: () async throws -> Void,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    do {
        try await body()
        Issue.record("expected \(expected), nothing was thrown", sourceLocation: sourceLocation)
    } catch {
        #expect(error as? StoreError == expected, sourceLocation: sourceLocation)
    }
}

/// The database itself: opening, migrating, health checks.
@Suite struct ParleyDatabaseTests {
    @Test func migrationsCreateTheSchema() async throws {
        try await StoreFixture.run { store in
            #expect(FileManager.default.fileExists(atPath: store.directory + "/parley.sqlite"))
            let tables = try await store.database.pool.read { db in
                try String.fetchAll(
                    db,
                    sql:
                        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%' ORDER BY name"
                )
            }
            #expect(
                tables == [
                    "api_completions", "api_keys", "assistant_collections", "assistant_groups", "assistants",
                    "attachment_data", "attachments", "conversation_collections", "conversations",
                    "conversations_fts",
                    "conversations_fts_config", "conversations_fts_data", "conversations_fts_docsize",
                    "conversations_fts_idx", "document_chunks", "document_chunks_fts", "document_chunks_fts_config",
                    "document_chunks_fts_data", "document_chunks_fts_docsize", "document_chunks_fts_idx",
                    "document_pages", "documents", "group_members", "invites", "knowledge_collections", "messages",
                    "messages_fts",
                    "messages_fts_config",
                    "messages_fts_data", "messages_fts_docsize", "messages_fts_idx", "model_access", "model_prices",
                    "pending_sign_ins",
                    "prompt_groups", "prompts", "sessions", "settings", "share_attachments", "share_messages", "shares",
                    "tool_choices", "usage_daily",
                    "user_groups", "users",
                ])
            #expect(try await store.database.integrityCheck() == "ok")
            #expect(await store.database.ping())
        }
    }

    @Test func reopeningKeepsTheData() async throws {
        try await StoreFixture.run { store in
            let alice = try await store.user("alice@example.com")
            let reopened = try ParleyDatabase(directory: store.directory)
            let found = try await SQLiteAccountStore(database: reopened).user(email: "alice@example.com")
            #expect(found?.id == alice.id)
            #expect(try await reopened.integrityCheck() == "ok")
        }
    }
}

/// Conversations: listing, paging and owner scoping.
@Suite struct ConversationStoreTests {
    @Test(arguments: StoreKind.allCases) func listingIsNewestActivityFirstWithACursor(kind: StoreKind) async throws {
        try await kind.withStores { store in
            let alice = try await store.user("alice@example.com")
            let bob = try await store.user("bob@example.com")
            var created: [Conversation] = []
            for index in 0..<5 {
                created.append(try await store.conversation(alice.id, title: "c\(index)"))
                try await StoreFixture.tick()
            }
            let bobs = try await store.conversation(bob.id)
            // Activity on the oldest one moves it to the top.
            _ = try await store.chats.beginExchange(
                conversationID: created[0].id, userContent: "hi", requestID: nil, model: "m")
            let expected = [created[0], created[4], created[3], created[2], created[1]].map(\.id)

            let all = try await store.chats.conversations(userID: alice.id, before: nil, limit: 10)
            #expect(all.items.map(\.id) == expected)
            #expect(!all.hasMore)

            let first = try await store.chats.conversations(userID: alice.id, before: nil, limit: 2)
            #expect(first.items.map(\.id) == Array(expected[0..<2]))
            #expect(first.hasMore)
            let second = try await store.chats.conversations(userID: alice.id, before: first.items.last?.id, limit: 2)
            #expect(second.items.map(\.id) == Array(expected[2..<4]))
            #expect(second.hasMore)
            let third = try await store.chats.conversations(userID: alice.id, before: second.items.last?.id, limit: 2)
            #expect(third.items.map(\.id) == [expected[4]])
            #expect(!third.hasMore)

            let foreignCursor = try await store.chats.conversations(userID: alice.id, before: bobs.id, limit: 10)
            #expect(foreignCursor.items.isEmpty && !foreignCursor.hasMore)
            #expect(
                try await store.chats.conversations(userID: bob.id, before: nil, limit: 10).items.map(\.id) == [bobs.id]
            )
        }
    }

    @Test(arguments: StoreKind.allCases) func conversationAccessIsScopedByOwner(kind: StoreKind) async throws {
        try await kind.withStores { store in
            let alice = try await store.user("alice@example.com")
            let mallory = try await store.user("mallory@example.com")
            let chat = try await store.conversation(alice.id, title: "Private")
            let exchange = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: "secret", requestID: "r1", model: "m")

            #expect(try await store.chats.conversation(id: chat.id, userID: mallory.id) == nil)
            #expect(try await store.chats.message(id: exchange.assistantMessage.id, userID: mallory.id) == nil)
            #expect(try await store.chats.message(id: try #require(exchange.userMessage).id, userID: mallory.id) == nil)
            await expectStoreError(.notFound) {
                try await store.chats.renameConversation(id: chat.id, userID: mallory.id, title: "Owned")
            }
            await expectStoreError(.notFound) {
                try await store.chats.configureConversation(
                    id: chat.id, userID: mallory.id, model: "evil", systemPrompt: "leak",
                    options: GenerationOptions(temperature: 2))
            }
            await expectStoreError(.notFound) {
                try await store.chats.deleteConversation(id: chat.id, userID: mallory.id)
            }
            await expectStoreError(.notFound) {
                _ = try await store.chats.messages(conversationID: chat.id, userID: mallory.id, afterID: nil, limit: 10)
            }
            await expectStoreError(.notFound) {
                try await store.chats.deleteMessage(
                    conversationID: chat.id, userID: mallory.id, messageID: exchange.assistantMessage.id)
            }
            await expectStoreError(.notFound) {
                _ = try await store.chats.selectBranch(
                    conversationID: chat.id, userID: mallory.id, messageID: exchange.assistantMessage.id)
            }

            // Everything is intact for the owner.
            let intact = try #require(try await store.chats.conversation(id: chat.id, userID: alice.id))
            #expect(intact.title == "Private" && intact.model == "m" && intact.systemPrompt == "be brief")
            let messages = try await store.chats.messages(
                conversationID: chat.id, userID: alice.id, afterID: nil, limit: 10)
            #expect(messages.items.map(\.content) == ["secret", ""])
            #expect(
                try await store.chats.message(id: exchange.assistantMessage.id, userID: alice.id)?.status == .streaming)
        }
    }

    @Test(arguments: StoreKind.allCases) func ownerCanRenameConfigureAndPageMessages(kind: StoreKind) async throws {
        try await kind.withStores { store in
            let alice = try await store.user("alice@example.com")
            let chat = try await store.conversation(alice.id)
            try await store.chats.renameConversation(id: chat.id, userID: alice.id, title: "Renamed")
            let options = GenerationOptions(temperature: 0.5, stop: ["END"], reasoningEffort: .low)
            try await store.chats.configureConversation(
                id: chat.id, userID: alice.id, model: "m2", systemPrompt: "", options: options)
            let updated = try #require(try await store.chats.conversation(id: chat.id, userID: alice.id))
            #expect(updated.title == "Renamed" && updated.model == "m2" && updated.systemPrompt == "")
            #expect(updated.options == options)

            let one = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: "q1", requestID: "r1", model: "m2")
            try await store.chats.finishReply(
                id: one.assistantMessage.id,
                outcome: ReplyOutcome(content: "a1", status: .complete, usage: Usage()))
            let two = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: "q2", requestID: "r2", model: "m2")
            let page = try await store.chats.messages(conversationID: chat.id, userID: alice.id, afterID: nil, limit: 3)
            #expect(page.items.map(\.content) == ["q1", "a1", "q2"])
            #expect(page.hasMore)
            let rest = try await store.chats.messages(
                conversationID: chat.id, userID: alice.id, afterID: page.items.last?.id, limit: 3)
            #expect(rest.items.map(\.id) == [two.assistantMessage.id])
            #expect(!rest.hasMore)
            let everything = try await store.chats.messages(
                conversationID: chat.id, userID: alice.id, afterID: nil, limit: .max)
            #expect(everything.items.count == 4 && !everything.hasMore)
        }
    }

    @Test(arguments: StoreKind.allCases) func beginningAnExchangeReadsTheConversationTheReplyAnswers(kind: StoreKind)
        async throws
    {
        try await kind.withStores { store in
            let alice = try await store.user("alice@example.com")
            let chat = try await store.conversation(alice.id), other = try await store.conversation(alice.id)
            _ = try await store.chats.beginExchange(
                conversationID: other.id, userContent: "elsewhere", requestID: nil, model: "m")
            let one = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: "q1", requestID: nil, model: "m")
            #expect(
                one.history.map(\.content) == ["q1"] && one.history.first == one.userMessage.map(HistoryMessage.init))
            try await store.chats.finishReply(
                id: one.assistantMessage.id, outcome: ReplyOutcome(content: "a1", status: .complete, usage: Usage()))
            let two = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: "q2", requestID: nil, model: "m")
            #expect(two.history.map(\.content) == ["q1", "a1", "q2"])
            #expect(two.history.allSatisfy { $0.id < two.assistantMessage.id })
            try await store.chats.finishReply(
                id: two.assistantMessage.id, outcome: ReplyOutcome(content: "a2", status: .complete, usage: Usage()))

            // Regenerating writes no question: the history ends with the one the deleted reply answered.
            try await store.chats.deleteMessage(
                conversationID: chat.id, userID: alice.id, messageID: two.assistantMessage.id)
            let again = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: nil, requestID: nil, model: "m")
            #expect(again.userMessage == nil)
            #expect(again.history.map(\.content) == ["q1", "a1", "q2"])
            let stored = try await store.chats.messages(
                conversationID: chat.id, userID: alice.id, afterID: nil, limit: .max
            ).items
            #expect(again.history == stored.dropLast().map(HistoryMessage.init))
        }
    }

    @Test(arguments: StoreKind.allCases) func deletingAConversationDeletesItsMessages(kind: StoreKind) async throws {
        try await kind.withStores { store in
            let alice = try await store.user("alice@example.com")
            let doomed = try await store.conversation(alice.id)
            let kept = try await store.conversation(alice.id)
            _ = try await store.chats.beginExchange(
                conversationID: doomed.id, userContent: "bye", requestID: "r", model: "m")
            _ = try await store.chats.beginExchange(
                conversationID: kept.id, userContent: "stay", requestID: "r", model: "m")
            #expect(try await store.count("SELECT COUNT(*) FROM messages WHERE conversation_id = ?", [doomed.id]) == 2)

            try await store.chats.deleteConversation(id: doomed.id, userID: alice.id)
            #expect(try await store.chats.conversation(id: doomed.id, userID: alice.id) == nil)
            #expect(try await store.count("SELECT COUNT(*) FROM messages WHERE conversation_id = ?", [doomed.id]) == 0)
            #expect(try await store.count("SELECT COUNT(*) FROM messages WHERE conversation_id = ?", [kept.id]) == 2)
            await expectStoreError(.notFound) {
                try await store.chats.deleteConversation(id: doomed.id, userID: alice.id)
            }
        }
    }
}

/// Replies: exchanges, progress, finishing, crash recovery and regeneration.
@Suite struct ReplyStoreTests {
    @Test(arguments: StoreKind.allCases) func beginExchangeWritesBothMessagesAndRefusesARepeatedRequestID(
        kind: StoreKind
    ) async throws {
        try await kind.withStores { store in
            let alice = try await store.user("alice@example.com")
            let chat = try await store.conversation(alice.id)
            let other = try await store.conversation(alice.id)
            let exchange = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: "hello", requestID: "req-1", model: "m")
            let user = try #require(exchange.userMessage)
            #expect(
                user.role == .user && user.content == "hello" && user.status == .complete && user.requestID == "req-1")
            #expect(exchange.assistantMessage.role == .assistant && exchange.assistantMessage.status == .streaming)
            #expect(exchange.assistantMessage.content.isEmpty && exchange.assistantMessage.parentID == user.id)

            await expectStoreError(.duplicate) {
                _ = try await store.chats.beginExchange(
                    conversationID: chat.id, userContent: "again", requestID: "req-1", model: "m")
            }
            // The failed attempt left nothing behind, not even its assistant placeholder.
            #expect(try await store.count("SELECT COUNT(*) FROM messages WHERE conversation_id = ?", [chat.id]) == 2)

            let elsewhere = try await store.chats.beginExchange(
                conversationID: other.id, userContent: "hello", requestID: "req-1", model: "m")
            #expect(elsewhere.userMessage?.conversationID == other.id)

            // Stored dates keep milliseconds only, so compare what identifies the messages.
            let found = try #require(try await store.chats.exchange(conversationID: chat.id, requestID: "req-1"))
            #expect(found.userMessage?.id == user.id && found.userMessage?.content == "hello")
            #expect(
                found.assistantMessage.id == exchange.assistantMessage.id && found.assistantMessage.status == .streaming
            )
            #expect(
                abs(found.assistantMessage.createdAt.timeIntervalSince(exchange.assistantMessage.createdAt)) < 0.002)
            let foundElsewhere = try #require(
                try await store.chats.exchange(conversationID: other.id, requestID: "req-1"))
            #expect(foundElsewhere.userMessage?.id == elsewhere.userMessage?.id)
            #expect(foundElsewhere.assistantMessage.id == elsewhere.assistantMessage.id)
            #expect(try await store.chats.exchange(conversationID: chat.id, requestID: "req-2") == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func regenerationWithoutUserContentAnswersTheLastUserMessage(kind: StoreKind)
        async throws
    {
        try await kind.withStores { store in
            let alice = try await store.user("alice@example.com")
            let chat = try await store.conversation(alice.id)
            let first = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: "q", requestID: nil, model: "m")
            try await store.chats.finishReply(
                id: first.assistantMessage.id, outcome: ReplyOutcome(content: "a", status: .complete, usage: Usage()))
            let again = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: nil, requestID: nil, model: "m2")
            #expect(again.userMessage == nil)
            #expect(again.assistantMessage.parentID == first.userMessage?.id)
            #expect(try await store.chats.conversation(id: chat.id, userID: alice.id)?.model == "m2")
        }
    }

    @Test(arguments: StoreKind.allCases) func saveProgressOnlyTouchesStreamingReplies(kind: StoreKind) async throws {
        try await kind.withStores { store in
            let alice = try await store.user("alice@example.com")
            let chat = try await store.conversation(alice.id)
            let done = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: "q1", requestID: nil, model: "m")
            try await store.chats.finishReply(
                id: done.assistantMessage.id, outcome: ReplyOutcome(content: "final", status: .complete, usage: Usage())
            )
            let running = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: "q2", requestID: nil, model: "m")

            try await store.chats.saveProgress([
                done.assistantMessage.id: "stale", running.assistantMessage.id: "partial",
                try #require(running.userMessage).id: "rewritten",
            ])
            #expect(try await store.chats.message(id: done.assistantMessage.id, userID: alice.id)?.content == "final")
            #expect(
                try await store.chats.message(id: running.assistantMessage.id, userID: alice.id)?.content == "partial")
            #expect(
                try await store.chats.message(id: try #require(running.userMessage).id, userID: alice.id)?.content
                    == "q2")
        }
    }

    @Test func saveProgressOfManyRepliesCommitsASliceATransaction() async throws {
        try await StoreFixture.run { store in
            let alice = try await store.user("alice@example.com")
            let chat = try await store.conversation(alice.id)
            var contents: [MessageID: String] = [:]
            for index in 0..<120 {
                let exchange = try await store.chats.beginExchange(
                    conversationID: chat.id, userContent: "q\(index)", requestID: nil, model: "m")
                contents[exchange.assistantMessage.id] = "partial \(index)"
            }
            let commits = MessageCommits()
            try await store.database.pool.writeWithoutTransaction { db in db.add(transactionObserver: commits) }

            try await store.chats.saveProgress(contents)
            // 50 + 50 + 20: a send's write waits behind one slice, not behind every running reply's text.
            #expect(commits.count == 3)
            for (id, content) in contents {
                #expect(try await store.chats.message(id: id, userID: alice.id)?.content == content)
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func finishReplyStoresTheOutcomeAndBumpsTheConversation(kind: StoreKind)
        async throws
    {
        try await kind.withStores { store in
            let alice = try await store.user("alice@example.com")
            let chat = try await store.conversation(alice.id)
            let exchange = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: "q", requestID: nil, model: "m")
            let before = try #require(try await store.chats.conversation(id: chat.id, userID: alice.id))
            try await StoreFixture.tick()

            let usage = Usage(promptTokens: 12, completionTokens: 34, costUSD: 0.0025, estimated: true)
            let failure = FailureReason(code: "upstream_timeout", message: "stopped sending")
            try await store.chats.finishReply(
                id: exchange.assistantMessage.id,
                outcome: ReplyOutcome(content: "half", status: .error, usage: usage, failure: failure))
            let reply = try #require(try await store.chats.message(id: exchange.assistantMessage.id, userID: alice.id))
            #expect(reply.content == "half" && reply.status == .error)
            #expect(reply.usage == usage)
            #expect(reply.failure == failure)
            let after = try #require(try await store.chats.conversation(id: chat.id, userID: alice.id))
            #expect(after.updatedAt > before.updatedAt)

            let second = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: "q2", requestID: nil, model: "m")
            try await store.chats.finishReply(
                id: second.assistantMessage.id,
                outcome: ReplyOutcome(content: "ok", status: .complete, usage: Usage()))
            let clean = try #require(try await store.chats.message(id: second.assistantMessage.id, userID: alice.id))
            #expect(clean.failure == nil && clean.status == .complete && clean.usage == Usage())
        }
    }

    @Test(arguments: StoreKind.allCases) func interruptingUnfinishedRepliesKeepsTheirContent(kind: StoreKind)
        async throws
    {
        try await kind.withStores { store in
            let alice = try await store.user("alice@example.com")
            let one = try await store.conversation(alice.id)
            let two = try await store.conversation(alice.id)
            let a = try await store.chats.beginExchange(
                conversationID: one.id, userContent: "q", requestID: nil, model: "m")
            let b = try await store.chats.beginExchange(
                conversationID: two.id, userContent: "q", requestID: nil, model: "m")
            // The server crashed, and came back.
            try await store.crash()
            let c = try await store.chats.beginExchange(
                conversationID: two.id, userContent: "q", requestID: nil, model: "m")
            try await store.chats.finishReply(
                id: c.assistantMessage.id, outcome: ReplyOutcome(content: "done", status: .stopped, usage: Usage()))
            try await store.chats.saveProgress([a.assistantMessage.id: "partial a"])
            try await store.crash()

            // On PostgreSQL, c's exchange already ended b, whose lease had run out.
            #expect(try await store.chats.interruptUnfinishedReplies() == (kind == .postgres ? 1 : 2))
            let first = try #require(try await store.chats.message(id: a.assistantMessage.id, userID: alice.id))
            #expect(first.status == .interrupted && first.content == "partial a")
            #expect(try await store.chats.message(id: b.assistantMessage.id, userID: alice.id)?.status == .interrupted)
            #expect(try await store.chats.message(id: c.assistantMessage.id, userID: alice.id)?.status == .stopped)
            #expect(try await store.chats.interruptUnfinishedReplies() == 0)
        }
    }

}
