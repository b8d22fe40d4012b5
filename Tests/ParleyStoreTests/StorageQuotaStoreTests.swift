import Foundation
import GRDB
import ParleyCore
import Testing

@testable import ParleyStore

/// What a user stores (images and message text) is counted exactly as it comes and goes, a fork holds the sharer's
/// image bytes once, and whatever would put a user over their quota is refused whole.
@Suite struct StorageQuotaStoreTests {
    @Test(
        "stored bytes follow sends, finished replies, regenerations, imports, forks and deletions, equal to a count from scratch",
        arguments: StoreKind.allCases)
    func storedBytesStayExact(kind: StoreKind) async throws {
        try await kind.withStores { store in
            let accounts = store.admin, shares = store.shares
            let alice = try await store.user("alice@example.com"), bob = try await store.user("bob@example.com")
            let chat = try await store.conversation(alice.id)
            let image = try AttachmentStoreTests.image()
            let exchange = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: "look at this ✓", images: [image, image],
                requestID: nil, model: "m")
            try await Self.expectExact(
                store, alice.id, 2 * Int64(image.bytes.count) + Int64("look at this ✓".utf8.count))
            try await store.chats.saveProgress([exchange.assistantMessage.id: "partial"])
            try await Self.expectExact(
                store, alice.id, 2 * Int64(image.bytes.count) + Int64("look at this ✓".utf8.count))
            try await store.chats.finishReply(
                id: exchange.assistantMessage.id,
                outcome: ReplyOutcome(content: "an answer", status: .complete, usage: Usage()))
            try await Self.expectExact(store, alice.id, nil)
            try await store.chats.deleteMessage(
                conversationID: chat.id, userID: alice.id, messageID: exchange.assistantMessage.id)
            try await Self.expectExact(store, alice.id, nil)
            let again = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: nil, images: [], requestID: nil, model: "m")
            try await store.chats.finishReply(
                id: again.assistantMessage.id,
                outcome: ReplyOutcome(content: "a second answer", status: .complete, usage: Usage()))
            try await Self.expectExact(store, alice.id, nil)

            let messages = try await store.chats.messages(
                conversationID: chat.id, userID: alice.id, afterID: nil, limit: 10
            ).items
            let share = try await shares.createShare(
                conversationID: chat.id, userID: alice.id, tokenHash: "digest",
                content: ShareStoreTests.content(messages: messages), now: Date())
            let fork = try await shares.copyShare(id: share.id, toUser: bob.id, model: "m", now: Date())
            try await Self.expectExact(store, bob.id, nil)
            #expect(try await store.count("SELECT COUNT(*) FROM attachments") == 4)
            #expect(try await store.count("SELECT COUNT(*) FROM attachment_data") == 2)

            try await store.chats.deleteConversation(id: chat.id, userID: alice.id)
            try await Self.expectExact(store, alice.id, 0)
            #expect(try await store.count("SELECT COUNT(*) FROM attachment_data") == 2)
            let forked = try await store.chats.messages(
                conversationID: fork.id, userID: bob.id, afterID: nil, limit: 10
            ).items
            let kept = try #require(forked.first?.attachments.first)
            #expect(try await store.chats.attachment(id: kept.id, userID: bob.id)?.bytes == image.bytes)
            try await store.chats.deleteConversation(id: fork.id, userID: bob.id)
            try await Self.expectExact(store, bob.id, 0)
            #expect(try await store.count("SELECT COUNT(*) FROM attachment_data") == 0)

            let transcript = ConversationTranscript(
                conversation: Conversation(
                    id: 0, userID: bob.id, title: "Imported", model: "m",
                    systemPrompt: "", createdAt: Date(), updatedAt: Date()),
                messages: [Self.message(.user, "é imported"), Self.message(.assistant, "reply")])
            _ = try await store.chats.importTranscripts([transcript], userID: bob.id)
            try await Self.expectExact(store, bob.id, Int64("é imported".utf8.count + "reply".utf8.count))
            #expect(try await accounts.storage(userID: bob.id).quotaBytes == StorageStatus.fallbackQuotaBytes)
        }
    }

    @Test(
        "a send, an import or a fork that would pass the quota is refused with what is stored, and stores nothing",
        arguments: StoreKind.allCases)
    func overQuotaIsRefusedWhole(kind: StoreKind) async throws {
        try await kind.withStores { store in
            let shares = store.shares
            let alice = try await store.user("alice@example.com"), bob = try await store.user("bob@example.com")
            let image = try AttachmentStoreTests.image()
            let chat = try await store.conversation(alice.id)
            let first = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: "hi", images: [image],
                requestID: nil, model: "m")
            try await store.chats.finishReply(
                id: first.assistantMessage.id, outcome: ReplyOutcome(content: "ok", status: .complete, usage: Usage()))
            let used = try await store.admin.storage(userID: alice.id).storedBytes
            try await store.admin.setDefaultStorageQuota(used + 10)
            #expect(
                try await store.admin.storage(userID: alice.id)
                    == StorageStatus(storedBytes: used, quotaBytes: used + 10))
            let messagesBefore = try await store.count("SELECT COUNT(*) FROM messages")
            let full = StoreError.storageFull(
                StorageStatus(storedBytes: used + Int64(image.bytes.count) + 2, quotaBytes: used + 10))
            await expectStoreError(full) {
                _ = try await store.chats.beginExchange(
                    conversationID: chat.id, userContent: "hi", images: [image], requestID: nil, model: "m")
            }
            #expect(try await store.count("SELECT COUNT(*) FROM messages") == messagesBefore)
            #expect(try await store.count("SELECT COUNT(*) FROM attachment_data") == 1)
            #expect(try await store.admin.storage(userID: alice.id).storedBytes == used)
            // Within the quota, a short message still goes.
            _ = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: "ok", images: [], requestID: nil, model: "m")

            let big = ConversationTranscript(
                conversation: Conversation(
                    id: 0, userID: alice.id, title: "Big", model: "m",
                    systemPrompt: "", createdAt: Date(), updatedAt: Date()),
                messages: [Self.message(.user, String(repeating: "x", count: 100))])
            await #expect(throws: StoreError.self) {
                _ = try await store.chats.importTranscripts([big], userID: alice.id)
            }
            #expect(try await store.count("SELECT COUNT(*) FROM conversations WHERE title = 'Big'") == 0)

            let messages = try await store.chats.messages(
                conversationID: chat.id, userID: alice.id, afterID: nil, limit: 2
            ).items
            let share = try await shares.createShare(
                conversationID: chat.id, userID: alice.id, tokenHash: "digest",
                content: ShareStoreTests.content(messages: messages), now: Date())
            try await store.admin.setStorageQuota(10, userID: bob.id)
            await #expect(throws: StoreError.self) {
                _ = try await shares.copyShare(id: share.id, toUser: bob.id, model: "m", now: Date())
            }
            #expect(try await store.count("SELECT COUNT(*) FROM conversations WHERE user_id = ?", [bob.id]) == 0)
            try await store.admin.setStorageQuota(nil, userID: bob.id)
            _ = try await shares.copyShare(id: share.id, toUser: bob.id, model: "m", now: Date())
        }
    }

    @Test(
        "migrating a database with images moves their bytes to attachment_data, counts every user's stored bytes, and finds the estimated part of usage"
    )
    func migrationMovesBytesAndCounts() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-migration-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let queue = try DatabaseQueue(path: directory + "/parley.sqlite")
        try Migrations.migrator.migrate(queue, upTo: "v6: questions indexed with their replies")
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO users (id, email, password_hash, is_admin, created_at) VALUES (1, 'a@example.com', 'h', 1, '2026-01-01 00:00:00.000');
                    INSERT INTO conversations (id, user_id, title, model, system_prompt, created_at, updated_at)
                        VALUES (1, 1, 't', 'm', '', '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000');
                    INSERT INTO model_prices (id, model_id, input, cached_input, output, effective_from)
                        VALUES (1, 'm', 1, 0, 1, '2026-01-01 00:00:00.000');
                    INSERT INTO messages (id, conversation_id, role, content, status, model, created_at, updated_at)
                        VALUES (1, 1, 'user', 'héllo', 'complete', 'm', '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000'),
                               (2, 1, 'assistant', 'half', 'streaming', 'm', '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000');
                    INSERT INTO messages (id, conversation_id, role, content, status, model, prompt_tokens, completion_tokens, cost_micros,
                                          usage_estimated, price_version_id, created_at, updated_at)
                        VALUES (3, 1, 'assistant', 'guessed', 'stopped', 'm', 10, 5, 15, 1, 1, '2026-01-02 00:00:00.000', '2026-01-02 09:00:00.000'),
                               (4, 1, 'assistant', 'told', 'complete', 'm', 20, 7, 27, 0, 1, '2026-01-02 00:00:00.000', '2026-01-02 10:00:00.000');
                    INSERT INTO usage_daily (day, user_id, model, requests, input_tokens, cached_input_tokens, output_tokens, cost_micros)
                        VALUES ('2026-01-02', 1, 'm', 2, 30, 0, 12, 42);
                    INSERT INTO attachments (user_id, conversation_id, message_id, position, content_type, file_name, byte_count, width,
                                             height, digest, data, created_at)
                        VALUES (1, 1, 1, 0, 'image/png', 'a.png', 3, 1, 1, 'd', x'010203', '2026-01-01 00:00:00.000');
                    """)
        }
        try queue.close()
        let database = try ParleyDatabase(directory: directory)
        let accounts = SQLiteAccountStore(database: database)
        #expect(try await accounts.storage(userID: 1).storedBytes == Int64("héllo guessed told".utf8.count) - 2 + 3)
        let day = try #require(UsageDay("2026-01-02"))
        let period = try #require(UsagePeriod(from: day, to: day))
        let report = try await SQLiteUsageStore(database: database).records(period: period)
        #expect(
            report.map(\.totals) == [
                UsageTotals(
                    requests: 2, inputTokens: 30, outputTokens: 12, costMicros: 42, estimatedTokens: 15,
                    estimatedCostMicros: 15)
            ])
        #expect(try await SQLiteChatStore(database: database).attachment(id: 1, userID: 1)?.bytes == [1, 2, 3])
        try database.close()
    }

    /// Checks `users.stored_bytes` against a count from scratch (and against `expected` when given).
    private static func expectExact(
        _ store: StoreKind.Stores, _ userID: UserID, _ expected: Int64?,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let bytes = store.kind == .sqlite ? "length(CAST(m.content AS BLOB))" : "octet_length(m.content)"
        let counted = Int64(
            try await store.count(
                """
                SELECT CAST(COALESCE((SELECT SUM(\(bytes)) FROM messages m JOIN conversations c ON c.id = m.conversation_id
                                      WHERE c.user_id = ? AND m.status <> 'streaming'), 0)
                          + COALESCE((SELECT SUM(byte_count) FROM attachments WHERE user_id = ?), 0) AS BIGINT)
                """, [userID, userID]))
        let stored = try await store.admin.storage(userID: userID).storedBytes
        #expect(stored == counted, sourceLocation: sourceLocation)
        if let expected { #expect(stored == expected, sourceLocation: sourceLocation) }
    }

    /// A finished message of a transcript.
    private static func message(_ role: MessageRole, _ content: String) -> Message {
        Message(
            id: 0, conversationID: 0, role: role, content: content, status: .complete, model: "m", createdAt: Date())
    }
}
