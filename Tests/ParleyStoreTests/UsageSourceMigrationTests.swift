import Foundation
import GRDB
import ParleyCore
import Testing

@testable import ParleyStore

/// Migration v15 rebuilds the usage rollup with a `source` in its key: what was counted before stays, as `chat`, and an
/// API completion charged afterwards gets a row of its own beside it.
@Suite struct UsageSourceMigrationTests {
    @Test func theRollupKeepsItsRowsAsChatAndCountsAPICompletionsApart() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("parley-v15-" + UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let old = try DatabasePool(path: directory + "/parley.sqlite")
        try Migrations.migrator.migrate(old, upTo: "v14: personal API keys")
        let today = UsageDay(Date()).description
        try await old.write { db in
            try db.execute(
                sql: """
                    INSERT INTO users (id, email, password_hash, is_admin, created_at)
                        VALUES (1, 'a@example.com', 'h', 0, '2026-01-01 00:00:00.000');
                    INSERT INTO usage_daily (day, user_id, model, requests, input_tokens, cached_input_tokens,
                                             output_tokens, cost_micros, title_tokens, reasoning_tokens)
                        VALUES (?, 1, 'm', 3, 30, 0, 60, 900, 5, 7);
                    """, arguments: [today])
        }
        try old.close()

        let database = try ParleyDatabase(directory: directory)
        let store = SQLiteChatStore(database: database)
        let id = try await store.beginAPICompletion(userID: 1, keyID: nil, model: "m")
        let pricing = ReplyPricing(
            modelID: "m", providerID: "p", listRates: TokenRates(ModelPrice(input: 1, output: 1)))
        _ = try await store.finishAPICompletion(
            id: id,
            outcome: ReplyOutcome(
                content: "", status: .complete, usage: Usage(promptTokens: 10, completionTokens: 20),
                pricing: pricing))
        let rows = try database.pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT source, requests, input_tokens, output_tokens, title_tokens, reasoning_tokens
                    FROM usage_daily ORDER BY source
                    """)
        }
        let counts: [[Int]] = rows.map { row in (1...5).map { row[$0] as Int } }
        #expect(rows.map { $0[0] as String } == ["api", "chat"])
        #expect(counts == [[1, 10, 20, 0, 0], [3, 30, 60, 5, 7]])
        let status = try await store.budgetStatus(userID: 1)
        #expect(status.spentMicros == 900 + 30)
    }
}
