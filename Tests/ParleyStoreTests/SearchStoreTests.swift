import Foundation
import GRDB
import ParleyCore
import Testing

@testable import ParleyStore

extension StoreKind.Stores {
    /// Writes a question and its finished answer; returns the two messages' ids.
    @discardableResult
    func exchange(_ conversation: Conversation, _ question: String, _ answer: String) async throws -> (
        user: MessageID, reply: MessageID
    ) {
        let exchange = try await chats.beginExchange(
            conversationID: conversation.id, userContent: question, requestID: nil, model: "m")
        try await chats.finishReply(
            id: exchange.assistantMessage.id, outcome: ReplyOutcome(content: answer, status: .complete, usage: Usage()))
        return (try #require(exchange.userMessage).id, exchange.assistantMessage.id)
    }

    /// Checks the search indexes against their tables (`checkSearch`).
    func checkSearchIndexes() async throws {
        try await checkSearch()
    }
}

extension ParleyDatabase {
    /// What FTS5's own integrity check says of both indexes (it throws when an index disagrees with its table).
    func checkSearchIndexes() async throws {
        try await pool.write { db in
            try db.execute(sql: "INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')")
            try db.execute(sql: "INSERT INTO conversations_fts (conversations_fts) VALUES ('integrity-check')")
        }
    }
}

/// The search box's text becomes a safe FTS5 expression.
@Suite struct FullTextQueryTests {
    @Test func wordsPhrasesAndPrefixesAreQuoted() {
        #expect(FullTextQuery("lisbon trip")?.expression == #""lisbon" "trip""#)
        #expect(FullTextQuery(#"  "lisbon trip"  next"#)?.expression == #""lisbon trip" "next""#)
        #expect(FullTextQuery("lisb*")?.expression == #""lisb"*"#)
        #expect(FullTextQuery("lisb***")?.expression == #""lisb"*"#)
        #expect(FullTextQuery(#""new yor*""#)?.expression == #""new yor*""#)
        #expect(FullTextQuery("a\tb\nc")?.expression == #""a" "b" "c""#)
    }

    @Test func hostileSyntaxNeverReachesFTS5() {
        #expect(FullTextQuery(#"""#) == nil)
        #expect(FullTextQuery("*") == nil)
        #expect(FullTextQuery("  ( ) - + ^ : ") == nil)
        #expect(FullTextQuery("") == nil)
        #expect(FullTextQuery("NEAR(")?.expression == #""NEAR(""#)
        #expect(FullTextQuery("title:x")?.expression == #""title:x""#)
        #expect(FullTextQuery("a OR b NOT c")?.expression == #""a" "OR" "b" "NOT" "c""#)
        #expect(FullTextQuery(#"'; DROP TABLE messages; --"#)?.expression == #""DROP" "TABLE" "messages;""#)
        #expect(FullTextQuery(#"unbalanced "quote here"#)?.expression == #""unbalanced" "quote here""#)
        let long = FullTextQuery(String(repeating: "word ", count: 2_000))
        #expect(long?.expression == Array(repeating: #""word""#, count: SearchTerms.maxTerms).joined(separator: " "))
    }
}

/// Full-text search on every database: scoped by owner, ranked, marked, and kept in sync with the messages.
@Suite struct SearchStoreTests {
    @Test(arguments: StoreKind.allCases) func findsOnlyTheOwnersMessagesBestFirstWithMarkedSnippets(kind: StoreKind)
        async throws
    {
        try await kind.withStores { store in
            let alice = try await store.user("alice@example.com")
            let bob = try await store.user("bob@example.com")
            let trip = try await store.conversation(alice.id, title: "Holiday")
            let other = try await store.conversation(alice.id, title: "Cooking")
            let bobs = try await store.conversation(bob.id, title: "Lisbon secrets")
            let (question, reply) = try await store.exchange(
                trip, "Plan a trip to Lisbon", "Lisbon, Lisbon and more Lisbon: a <script> guide")
            let (mention, _) = try await store.exchange(
                other, "Cod recipes from Lisbon and Porto with some more words around", "Soak the cod.")
            try await store.exchange(bobs, "Lisbon for Bob", "Bob's Lisbon")

            let hits = try await store.chats.search(userID: alice.id, text: "lisbon", limit: 10)
            #expect(hits.map(\.messageID) == [reply, question, mention])
            #expect(hits.allSatisfy { $0.conversationID == trip.id || $0.conversationID == other.id })
            #expect(
                hits[0].snippet
                    == "\u{E000}Lisbon\u{E001}, \u{E000}Lisbon\u{E001} and more \u{E000}Lisbon\u{E001}: a <script> guide"
            )
            #expect(hits[0].title == "Holiday" && hits[0].role == .assistant && !hits[0].archived)
            #expect(hits[2].title == "Cooking" && hits[2].role == .user)

            let titles = try await store.chats.search(userID: bob.id, text: "secrets", limit: 10)
            #expect(
                titles == [
                    SearchHit(
                        conversationID: bobs.id, title: "Lisbon \u{E000}secrets\u{E001}", messageID: nil, role: nil,
                        snippet: "", archived: false, score: titles.first?.score ?? 0)
                ])
            #expect(try await store.chats.search(userID: alice.id, text: "secrets", limit: 10).isEmpty)
            #expect(try await store.chats.search(userID: alice.id, text: "bob", limit: 10).isEmpty)
            #expect(
                try await store.chats.search(userID: alice.id, text: "lisbon", limit: 2).map(\.messageID) == [
                    reply, question,
                ])
        }
    }

    @Test(arguments: StoreKind.allCases) func phrasesPrefixesAndAccentsMatchAsTyped(kind: StoreKind) async throws {
        try await kind.withStores { store in
            let alice = try await store.user("alice@example.com")
            let chat = try await store.conversation(alice.id)
            let (first, second) = try await store.exchange(chat, "the quick brown fox", "brown quick foxes jump")
            let (third, _) = try await store.exchange(chat, "Crème brûlée at the café", "ok")

            #expect(
                try await store.chats.search(userID: alice.id, text: #""quick brown""#, limit: 10).map(\.messageID) == [
                    first
                ])
            #expect(
                try await store.chats.search(userID: alice.id, text: "quick brown", limit: 10).compactMap(\.messageID)
                    .sorted() == [first, second])
            #expect(try await store.chats.search(userID: alice.id, text: "fox", limit: 10).map(\.messageID) == [first])
            #expect(
                try await store.chats.search(userID: alice.id, text: "fox*", limit: 10).compactMap(\.messageID).sorted()
                    == [first, second])
            #expect(
                try await store.chats.search(userID: alice.id, text: "creme brulee cafe", limit: 10).map(\.messageID)
                    == [third])
        }
    }

    @Test(arguments: StoreKind.allCases) func hostileQueriesFindNothingOrValidResultsAndChangeNothing(kind: StoreKind)
        async throws
    {
        try await kind.withStores { store in
            let alice = try await store.user("alice@example.com")
            let chat = try await store.conversation(alice.id, title: "title")
            let (question, _) = try await store.exchange(chat, "please drop the table of messages near x", "fine")
            let hostile = [
                #"""#, "NEAR(", "NEAR(a b)", "*", "title:x", "content:near", "'; DROP TABLE messages; --", "a AND", "(",
                ")",
                "^near", "-x", #"\"#, "\u{0}", "\u{E000}near\u{E001}", String(repeating: "x", count: 10_240),
                String(repeating: #"" NEAR( * "#, count: 1_000),
            ]
            for text in hostile {
                let hits = try await store.chats.search(userID: alice.id, text: text, limit: 10)
                #expect(hits.allSatisfy { $0.conversationID == chat.id }, "\(text.prefix(20))")
            }
            #expect(
                try await store.chats.search(userID: alice.id, text: "'; DROP TABLE messages; --", limit: 10).map(
                    \.messageID) == [question])
            #expect(try await store.chats.search(userID: alice.id, text: "title:x", limit: 10).isEmpty)
            #expect(try await store.count("SELECT COUNT(*) FROM messages") == 2)
            try await store.checkSearchIndexes()
        }
    }

    @Test(arguments: StoreKind.allCases) func theIndexFollowsRepliesRenamesAndDeletes(kind: StoreKind) async throws {
        try await kind.withStores { store in
            let alice = try await store.user("alice@example.com")
            let chat = try await store.conversation(alice.id, title: "Alpha")
            let exchange = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: "question", requestID: nil, model: "m")
            try await store.chats.saveProgress([exchange.assistantMessage.id: "partial zebra"])
            #expect(try await store.chats.search(userID: alice.id, text: "zebra", limit: 10).isEmpty)
            // The question is indexed with its reply, once the reply ends.
            #expect(try await store.chats.search(userID: alice.id, text: "question", limit: 10).isEmpty)
            try await store.chats.finishReply(
                id: exchange.assistantMessage.id,
                outcome: ReplyOutcome(content: "final zebra", status: .complete, usage: Usage()))
            #expect(
                try await store.chats.search(userID: alice.id, text: "zebra", limit: 10).map(\.snippet) == [
                    "final \u{E000}zebra\u{E001}"
                ])
            #expect(
                try await store.chats.search(userID: alice.id, text: "question", limit: 10).map(\.messageID) == [
                    try #require(exchange.userMessage).id
                ])
            try await store.checkSearchIndexes()

            try await store.chats.renameConversation(id: chat.id, userID: alice.id, title: "Omega")
            #expect(try await store.chats.search(userID: alice.id, text: "alpha", limit: 10).isEmpty)
            #expect(
                try await store.chats.search(userID: alice.id, text: "omega", limit: 10).map(\.title) == [
                    "\u{E000}Omega\u{E001}"
                ])

            try await store.chats.deleteMessage(
                conversationID: chat.id, userID: alice.id, messageID: exchange.assistantMessage.id)
            #expect(try await store.chats.search(userID: alice.id, text: "zebra", limit: 10).isEmpty)
            let crashed = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: nil, requestID: nil, model: "m")
            try await store.chats.saveProgress([crashed.assistantMessage.id: "unfinished yak"])
            try await store.crash()
            #expect(try await store.chats.interruptUnfinishedReplies() == 1)
            #expect(
                try await store.chats.search(userID: alice.id, text: "yak", limit: 10).map(\.messageID) == [
                    crashed.assistantMessage.id
                ])
            // A crash during a reply: the start-up that interrupts the reply indexes its question.
            let unanswered = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: "unanswered kiwi", requestID: nil, model: "m")
            #expect(try await store.chats.search(userID: alice.id, text: "kiwi", limit: 10).isEmpty)
            try await store.crash()
            #expect(try await store.chats.interruptUnfinishedReplies() == 1)
            #expect(
                try await store.chats.search(userID: alice.id, text: "kiwi", limit: 10).map(\.messageID) == [
                    try #require(unanswered.userMessage).id
                ])
            try await store.checkSearchIndexes()
            // A conversation deleted while a reply runs takes its held question with it.
            _ = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: "doomed quokka", requestID: nil, model: "m")

            try await store.chats.deleteConversation(id: chat.id, userID: alice.id)
            #expect(
                try await store.chats.search(userID: alice.id, text: "question omega yak kiwi quokka", limit: 10)
                    .isEmpty)
            #expect(try await store.count("SELECT COUNT(*) FROM messages") == 0)
            if kind == .sqlite {
                #expect(try await store.count("SELECT COUNT(*) FROM messages_fts_docsize") == 0)
                #expect(try await store.count("SELECT COUNT(*) FROM conversations_fts_docsize") == 0)
            }
            try await store.checkSearchIndexes()
        }
    }

    @Test func theMigrationIndexesExistingRows() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "parley-migration-" + UUID().uuidString
        ).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let old = try DatabaseQueue(path: directory + "/parley.sqlite")
        try Migrations.migrator.migrate(old, upTo: "v1: accounts, conversations, messages")
        try await old.write { db in
            try db.execute(
                sql: """
                    INSERT INTO users (id, email, password_hash, created_at) VALUES (1, 'old@example.com', 'h', '2025-01-01 00:00:00.000');
                    INSERT INTO conversations (id, user_id, title, model, created_at, updated_at)
                        VALUES (7, 1, 'Old title', 'm', '2025-01-01 00:00:00.000', '2025-01-01 00:00:00.000');
                    INSERT INTO messages (conversation_id, role, content, status, model, created_at, updated_at)
                        VALUES (7, 'user', 'an old walrus', 'complete', 'm', '2025-01-01 00:00:00.000', '2025-01-01 00:00:00.000'),
                               (7, 'assistant', 'a streaming walrus', 'streaming', 'm', '2025-01-01 00:00:00.000', '2025-01-01 00:00:00.000');
                    """)
        }
        try old.close()
        let database = try ParleyDatabase(directory: directory)
        let chats = SQLiteChatStore(database: database)
        #expect(
            try await chats.search(userID: 1, text: "walrus", limit: 10).map(\.snippet) == [
                "an old \u{E000}walrus\u{E001}"
            ])
        #expect(
            Set(try await chats.search(userID: 1, text: "old", limit: 10).map(\.title)) == [
                "\u{E000}Old\u{E001} title", "Old title",
            ])
        #expect(try await chats.interruptUnfinishedReplies() == 1)
        #expect(try await chats.search(userID: 1, text: "walrus", limit: 10).count == 2)
        try await database.checkSearchIndexes()
        let listed = try await chats.conversations(userID: 1, before: nil, limit: 10)
        #expect(listed.items.map(\.id) == [7] && !listed.items[0].pinned && !listed.items[0].archived)
    }

    @Test func searchOverOneHundredThousandMessages() async throws {
        try await StoreFixture.run { store in
            let alice = try await store.user("alice@example.com")
            let bob = try await store.user("bob@example.com")
            let build = ContinuousClock.now
            try await SearchCorpus.write(
                into: store.database, users: [alice.id, bob.id], conversations: 2_000, messagesEach: 50)
            print("search benchmark: wrote 100,000 messages in \(ContinuousClock.now - build)")
            #expect(try await store.count("SELECT COUNT(*) FROM messages") == 100_000)
            for (label, text) in SearchCorpus.queries {
                var hits: [SearchHit] = []
                var timings: [Duration] = []
                for _ in 0..<15 {
                    let start = ContinuousClock.now
                    hits = try await store.chats.search(userID: alice.id, text: text, limit: 50)
                    timings.append(ContinuousClock.now - start)
                }
                timings.sort()
                print(
                    "search benchmark: \(label) (\(text)): \(hits.count) hits, median \(timings[timings.count / 2]), max \(timings.last!)"
                )
                #expect(!hits.isEmpty, "\(label)")
                #expect(hits.allSatisfy { $0.conversationID % 2 == 1 }, "only alice's conversations (odd ids)")
            }
        }
    }
}

/// A deterministic corpus of messages for the search benchmark: common English words with rare marker words mixed in.
enum SearchCorpus {
    /// The queries timed, with what they stand for.
    static let queries = [
        ("common word", "because"), ("rare word", "zq1234"), ("phrase", #""answer is""#),
        ("prefix", "zq12*"), ("two words", "model answer"),
    ]

    static let common = """
        the be to of and a in that have it for not on with he as you do at this but his by from they we say her she or an will
        my one all would there their what so up out if about who get which go me when make can like time no just him know take
        people into year your good some could them see other than then now look only come its over think also back after use
        two how our work first well way even new want because any these give day most us answer question model reply is
        """.split(whereSeparator: \.isWhitespace).map(String.init)

    /// Writes `conversations` conversations (alternating between the users) of `messagesEach` messages in one
    /// transaction.
    static func write(into database: ParleyDatabase, users: [UserID], conversations: Int, messagesEach: Int)
        async throws
    {
        try await database.pool.write { db in
            var random = SplitMix64(seed: 42)
            let conversation = try db.makeStatement(
                sql: """
                    INSERT INTO conversations (user_id, title, model, created_at, updated_at) VALUES (?, ?, 'm', ?, ?)
                    """)
            let message = try db.makeStatement(
                sql: """
                    INSERT INTO messages (conversation_id, role, content, status, model, created_at, updated_at)
                    VALUES (?, ?, ?, 'complete', 'm', ?, ?)
                    """)
            let now = Date()
            for index in 0..<conversations {
                try conversation.execute(arguments: [users[index % users.count], "Conversation \(index)", now, now])
                let id = db.lastInsertedRowID
                for turn in 0..<messagesEach {
                    let words = (0..<(20 + Int(random.next() % 40))).map { _ in
                        random.next() % 10 == 0
                            ? "zq\(random.next() % 10_000)" : common[Int(random.next() % UInt64(common.count))]
                    }
                    try message.execute(arguments: [
                        id, turn % 2 == 0 ? "user" : "assistant", words.joined(separator: " "), now, now,
                    ])
                }
            }
        }
    }
}
