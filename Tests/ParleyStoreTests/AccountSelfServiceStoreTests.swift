import Foundation
import GRDB
import ParleyCore
import Testing

@testable import ParleyStore

/// Migration v12 and its queries: display names, where sessions began and when they were last used, signing one out,
/// a new password that keeps one session, and invites.
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

    @Test("sessions keep their origin and last use, list only the user's live ones, and sign out only the user's own")
    func sessions() async throws {
        try await StoreFixture.run { store in
            let alice = try await store.user("alice@example.com")
            let bob = try await store.user("bob@example.com")
            let now = Date()
            let firefox = SessionOrigin(userAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0", address: "10.0.0.7")
            try await store.accounts.createSession(
                Session(id: "a1", userID: alice.id, expiresAt: now.addingTimeInterval(Self.hour)), origin: firefox)
            try await store.accounts.createSession(
                Session(
                    id: "a2", userID: alice.id, expiresAt: now.addingTimeInterval(Self.hour),
                    lastUsedAt: now.addingTimeInterval(-Self.hour)), origin: .unknown)
            try await store.accounts.createSession(
                Session(id: "gone", userID: alice.id, expiresAt: now.addingTimeInterval(-1)), origin: .unknown)
            try await store.accounts.createSession(
                Session(id: "b1", userID: bob.id, expiresAt: now.addingTimeInterval(Self.hour)), origin: firefox)

            var listed = try await store.accounts.sessions(userID: alice.id, now: now)
            #expect(listed.map(\.id) == ["a1", "a2"])
            #expect(listed.first?.origin == firefox)
            #expect(abs((listed.last?.lastUsedAt ?? .distantPast).timeIntervalSince(now - Self.hour)) < 0.01)

            try await store.accounts.touchSession(id: "a2", at: now.addingTimeInterval(60))
            listed = try await store.accounts.sessions(userID: alice.id, now: now)
            #expect(listed.map(\.id) == ["a2", "a1"])
            #expect(
                try await store.accounts.session(id: "a2", now: now)?.session.lastUsedAt == listed.first?.lastUsedAt)

            // Bob's session, named with Alice's id, is not hers: refused, and it still works.
            await #expect(throws: StoreError.notFound) {
                try await store.accounts.deleteSession(id: "b1", userID: alice.id)
            }
            #expect(try await store.accounts.session(id: "b1", now: now) != nil)
            try await store.accounts.deleteSession(id: "a1", userID: alice.id)
            #expect(try await store.accounts.session(id: "a1", now: now) == nil)
            #expect(try await store.accounts.sessions(userID: alice.id, now: now).map(\.id) == ["a2"])
        }
    }

    @Test("a new password hash signs out the user's other sessions, keeps the one named, and touches nobody else")
    func passwordChange() async throws {
        try await StoreFixture.run { store in
            let alice = try await store.user("alice@example.com")
            let bob = try await store.user("bob@example.com")
            let expiry = Date().addingTimeInterval(Self.hour)
            for (id, user) in [("a1", alice.id), ("a2", alice.id), ("a3", alice.id), ("b1", bob.id)] {
                try await store.accounts.createSession(
                    Session(id: id, userID: user, expiresAt: expiry), origin: .unknown)
            }
            try await store.accounts.changePasswordHash("new-hash", userID: alice.id, keepingSession: "a2")
            #expect(try await store.accounts.user(email: "alice@example.com")?.passwordHash == "new-hash")
            #expect(try await store.accounts.sessions(userID: alice.id, now: Date()).map(\.id) == ["a2"])
            #expect(try await store.accounts.sessions(userID: bob.id, now: Date()).map(\.id) == ["b1"])
            #expect(try await store.accounts.user(email: "bob@example.com")?.passwordHash == "hash")
            await #expect(throws: StoreError.notFound) {
                try await store.accounts.changePasswordHash("x", userID: 999, keepingSession: "")
            }
        }
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

    @Test("an invite is found by its digest, makes one account once, never past its expiry or for another email")
    func invites() async throws {
        try await StoreFixture.run { store in
            let admin = try await store.user("admin@example.com")
            let now = Date()
            let open = try await store.accounts.createInvite(
                digest: "open", email: nil, createdBy: admin.id, expiresAt: now.addingTimeInterval(Self.hour))
            let named = try await store.accounts.createInvite(
                digest: "named", email: "Carol@Example.com", createdBy: admin.id,
                expiresAt: now.addingTimeInterval(Self.hour))
            let stale = try await store.accounts.createInvite(
                digest: "stale", email: nil, createdBy: admin.id, expiresAt: now.addingTimeInterval(-1))
            #expect(try await store.accounts.invite(digest: "open") == open)
            #expect(try await store.accounts.invite(digest: "unknown") == nil)
            #expect(try await store.accounts.invites().map(\.id) == [stale.id, named.id, open.id])

            // A taken email rolls the whole redemption back: the invite stays usable.
            await #expect(throws: StoreError.duplicate) {
                _ = try await store.accounts.redeemInvite(
                    id: open.id, email: "admin@example.com", passwordHash: "h", now: now)
            }
            #expect(try await store.accounts.invite(digest: "open")?.usedAt == nil)
            let dave = try #require(
                try await store.accounts.redeemInvite(
                    id: open.id, email: "dave@example.com", passwordHash: "h", now: now))
            #expect(!dave.isAdmin)
            let used = try #require(try await store.accounts.invite(digest: "open"))
            #expect(used.usedBy == dave.id && used.usedAt != nil)
            #expect(
                try await store.accounts.redeemInvite(
                    id: open.id, email: "eve@example.com", passwordHash: "h", now: now)
                    == nil)
            #expect(
                try await store.accounts.redeemInvite(
                    id: stale.id, email: "eve@example.com", passwordHash: "h", now: now)
                    == nil)
            #expect(
                try await store.accounts.redeemInvite(
                    id: named.id, email: "eve@example.com", passwordHash: "h", now: now)
                    == nil)
            #expect(try await store.accounts.user(email: "eve@example.com") == nil)
            #expect(
                try await store.accounts.redeemInvite(
                    id: named.id, email: "carol@example.com", passwordHash: "h", now: now)?.email == "carol@example.com"
            )

            // Only unused invites can be withdrawn; the people who made and used them may go, the rows stay.
            await #expect(throws: StoreError.notFound) { try await store.accounts.revokeInvite(id: open.id) }
            try await store.accounts.revokeInvite(id: stale.id)
            #expect(try await store.accounts.invite(digest: "stale") == nil)
            _ = try await store.accounts.deleteUser(id: dave.id)
            _ = try await store.accounts.deleteUser(id: admin.id)
            let orphan = try #require(try await store.accounts.invite(digest: "open"))
            #expect(orphan.usedBy == nil && orphan.createdBy == nil && orphan.usedAt != nil)
        }
    }
}
