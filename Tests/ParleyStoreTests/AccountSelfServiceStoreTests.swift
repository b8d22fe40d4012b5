import Foundation
import GRDB
import ParleyCore
import Testing

@testable import ParleyStore

/// Migration v12 and what only the SQLite store has of it: display names through the admin's account view, (sessions,
/// passwords, names and invites on every database: AccountStoreTests).
@Suite struct AccountSelfServiceStoreTests {
    static let hour: TimeInterval = 3600

    @Test("migration v12: accounts and sessions stored before get no name, origin or last use, and still work")
    func migration() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("parley-v12-" + UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let old = try DatabasePool(path: directory + "/parley.sqlite")
        try Migrations.migrator.migrate(old, upTo: "v11: reasoning time and shared reasoning")
        try await old.write { db in
            try db.execute(
                sql: """
                    INSERT INTO users (id, email, password_hash, is_admin, created_at)
                        VALUES (1, 'a@example.com', 'h', 0, '2026-01-01 00:00:00.000');
                    INSERT INTO sessions (id, user_id, created_at, expires_at)
                        VALUES ('old', 1, '2026-01-01 00:00:00.000', '2999-01-01 00:00:00.000');
                    """)
        }
        try old.close()

        let database = try ParleyDatabase(directory: directory)
        let accounts = SQLiteAccountStore(database: database)
        let active = try #require(try await accounts.session(id: "old", now: Date()))
        #expect(active.user.displayName == nil && active.user.label == "a@example.com")
        #expect(active.session.lastUsedAt == nil)
        let listed = try await accounts.sessions(userID: 1, now: Date())
        #expect(listed.map(\.id) == ["old"])
        #expect(listed.first?.origin == .unknown && listed.first?.lastUsedAt == nil)
        #expect(try await accounts.invites().isEmpty)
    }

    @Test("a display name is stored, read with the user, and cleared back to the email")
    func displayName() async throws {
        try await StoreFixture.run { store in
            let alice = try await store.user("alice@example.com")
            try await store.accounts.setDisplayName("Alice 🦊", userID: alice.id)
            let named = try #require(try await store.accounts.user(email: "alice@example.com"))
            #expect(named.displayName == "Alice 🦊" && named.label == "Alice 🦊")
            #expect(try await store.accounts.account(id: alice.id)?.user.displayName == "Alice 🦊")
            try await store.accounts.setDisplayName(nil, userID: alice.id)
            #expect(try await store.accounts.user(email: "alice@example.com")?.label == "alice@example.com")
            await #expect(throws: StoreError.notFound) { try await store.accounts.setDisplayName("x", userID: 999) }
        }
    }
}
