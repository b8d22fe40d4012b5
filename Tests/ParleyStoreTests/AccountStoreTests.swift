import Foundation
import ParleyCore
import Testing

/// Users, sign-up, sessions and settings, the same on every database.
@Suite struct AccountStoreTests {
    static let hour: TimeInterval = 3600

    @Test("the first sign-up becomes admin; later ones need sign-up open", arguments: StoreKind.allCases)
    func firstSignUpBecomesAdmin(kind: StoreKind) async throws {
        try await kind.withAccounts { accounts in
            let first = try await accounts.signUp(
                email: "first@example.com", passwordHash: "h1", allowWhenUsersExist: false)
            #expect(first.isAdmin)
            await #expect(throws: StoreError.signupClosed) {
                _ = try await accounts.signUp(
                    email: "second@example.com", passwordHash: "h2", allowWhenUsersExist: false)
            }
            #expect(try await accounts.user(email: "second@example.com") == nil)
            let second = try await accounts.signUp(
                email: "second@example.com", passwordHash: "h2", allowWhenUsersExist: true)
            #expect(!second.isAdmin && second.id != first.id)
            #expect(try await accounts.user(email: "first@example.com") == first)
            #expect(try await accounts.hasUsers())
        }
    }

    @Test("of sign-ups at once on an empty database, exactly one becomes admin", arguments: StoreKind.allCases)
    func concurrentSignUps(kind: StoreKind) async throws {
        try await kind.withAccounts { accounts in
            #expect(try await !accounts.hasUsers())
            let users = try await withThrowingTaskGroup(of: User.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        try await accounts.signUp(
                            email: "u\(index)@example.com", passwordHash: "h", allowWhenUsersExist: true)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(users.count == 8 && users.filter(\.isAdmin).count == 1)
        }
    }

    @Test("an email is taken whatever its case", arguments: StoreKind.allCases)
    func duplicateEmail(kind: StoreKind) async throws {
        try await kind.withAccounts { accounts in
            let alice = try await accounts.createUser(email: "Alice@Example.com", passwordHash: "h", isAdmin: false)
            await #expect(throws: StoreError.duplicate) {
                _ = try await accounts.createUser(email: "alice@example.COM", passwordHash: "x", isAdmin: true)
            }
            await #expect(throws: StoreError.duplicate) {
                _ = try await accounts.signUp(email: "ALICE@example.com", passwordHash: "x", allowWhenUsersExist: true)
            }
            #expect(try await accounts.user(email: "alice@EXAMPLE.com") == alice)
        }
    }

    @Test(
        "sessions expire, keep their origin and last use, list only the user's live ones, and are revoked one, the user's own, or all",
        arguments: StoreKind.allCases)
    func sessions(kind: StoreKind) async throws {
        try await kind.withAccounts { accounts in
            let alice = try await accounts.createUser(email: "alice@example.com", passwordHash: "h", isAdmin: false)
            let bob = try await accounts.createUser(email: "bob@example.com", passwordHash: "h", isAdmin: false)
            let now = Date()
            let expiry = now.addingTimeInterval(Self.hour)
            let firefox = SessionOrigin(userAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0", address: "10.0.0.7")
            try await accounts.createSession(Session(id: "a1", userID: alice.id, expiresAt: expiry), origin: firefox)
            try await accounts.createSession(
                Session(id: "a2", userID: alice.id, expiresAt: expiry, lastUsedAt: now.addingTimeInterval(-Self.hour)),
                origin: .unknown)
            try await accounts.createSession(
                Session(id: "gone", userID: alice.id, expiresAt: now.addingTimeInterval(-1)), origin: .unknown)
            try await accounts.createSession(Session(id: "b1", userID: bob.id, expiresAt: expiry), origin: firefox)

            let live = try #require(try await accounts.session(id: "a1", now: now))
            #expect(live.user == alice && abs(live.expiresAt.timeIntervalSince(expiry)) < 0.01)
            #expect(try await accounts.session(id: "a1", now: expiry.addingTimeInterval(1)) == nil)
            #expect(try await accounts.session(id: "gone", now: now) == nil)
            #expect(try await accounts.session(id: "missing", now: now) == nil)

            var listed = try await accounts.sessions(userID: alice.id, now: now)
            #expect(listed.map(\.id) == ["a1", "a2"] && listed.first?.origin == firefox)
            try await accounts.touchSession(id: "a2", at: now.addingTimeInterval(60))
            listed = try await accounts.sessions(userID: alice.id, now: now)
            #expect(listed.map(\.id) == ["a2", "a1"])
            #expect(try await accounts.session(id: "a2", now: now)?.session.lastUsedAt == listed.first?.lastUsedAt)

            await #expect(throws: StoreError.notFound) { try await accounts.deleteSession(id: "b1", userID: alice.id) }
            #expect(try await accounts.session(id: "b1", now: now) != nil)
            try await accounts.deleteSession(id: "a1", userID: alice.id)
            try await accounts.deleteSession(id: "missing")
            #expect(try await accounts.sessions(userID: alice.id, now: now).map(\.id) == ["a2"])
            try await accounts.deleteSessions(userID: alice.id)
            #expect(try await accounts.session(id: "a2", now: now) == nil)
            #expect(try await accounts.session(id: "b1", now: now)?.userID == bob.id)
        }
    }

    @Test(
        "a new password signs out the user's other sessions and keeps the one named; a display name is kept and cleared",
        arguments: StoreKind.allCases)
    func selfService(kind: StoreKind) async throws {
        try await kind.withAccounts { accounts in
            let alice = try await accounts.createUser(email: "alice@example.com", passwordHash: "h", isAdmin: false)
            let bob = try await accounts.createUser(email: "bob@example.com", passwordHash: "h", isAdmin: false)
            let expiry = Date().addingTimeInterval(Self.hour)
            for (id, user) in [("a1", alice.id), ("a2", alice.id), ("b1", bob.id)] {
                try await accounts.createSession(Session(id: id, userID: user, expiresAt: expiry), origin: .unknown)
            }
            try await accounts.changePasswordHash("new-hash", userID: alice.id, keepingSession: "a2")
            #expect(try await accounts.user(email: "alice@example.com")?.passwordHash == "new-hash")
            #expect(try await accounts.sessions(userID: alice.id, now: Date()).map(\.id) == ["a2"])
            #expect(try await accounts.sessions(userID: bob.id, now: Date()).map(\.id) == ["b1"])
            await #expect(throws: StoreError.notFound) {
                try await accounts.changePasswordHash("x", userID: 999, keepingSession: "")
            }

            try await accounts.setDisplayName("Alice 🦊", userID: alice.id)
            #expect(try await accounts.user(email: "alice@example.com")?.label == "Alice 🦊")
            try await accounts.setDisplayName(nil, userID: alice.id)
            #expect(try await accounts.user(email: "alice@example.com")?.label == "alice@example.com")
            await #expect(throws: StoreError.notFound) { try await accounts.setDisplayName("x", userID: 999) }
        }
    }

    @Test(
        "deleting a user deletes their sessions and no one else's; a second delete is notFound",
        arguments: StoreKind.allCases)
    func deleteUser(kind: StoreKind) async throws {
        try await kind.withAccounts { accounts in
            let alice = try await accounts.createUser(email: "alice@example.com", passwordHash: "h", isAdmin: false)
            let bob = try await accounts.createUser(email: "bob@example.com", passwordHash: "h", isAdmin: false)
            let expiry = Date().addingTimeInterval(Self.hour)
            try await accounts.createSession(Session(id: "a1", userID: alice.id, expiresAt: expiry), origin: .unknown)
            try await accounts.createSession(Session(id: "b1", userID: bob.id, expiresAt: expiry), origin: .unknown)
            #expect(try await accounts.deleteUser(id: alice.id).isEmpty)
            #expect(try await accounts.user(email: "alice@example.com") == nil)
            #expect(try await accounts.session(id: "a1", now: Date()) == nil)
            #expect(try await accounts.session(id: "b1", now: Date()) != nil)
            await #expect(throws: StoreError.notFound) { _ = try await accounts.deleteUser(id: alice.id) }
        }
    }

    @Test("a setting keeps its first value", arguments: StoreKind.allCases)
    func settingKeepsTheFirstValue(kind: StoreKind) async throws {
        try await kind.withAccounts { accounts in
            let first = try await accounts.setting("secret", orInsert: { "first" })
            let second = try await accounts.setting("secret", orInsert: { "second" })
            let other = try await accounts.setting("other", orInsert: { "third" })
            #expect([first, second, other] == ["first", "first", "third"])
        }
    }

    @Test(
        "an invite is found by its digest, makes one account once, never past its expiry or for another email",
        arguments: StoreKind.allCases)
    func invites(kind: StoreKind) async throws {
        try await kind.withStores { store in
            let admin = try await store.accounts.createUser(
                email: "admin@example.com", passwordHash: "h", isAdmin: true)
            let now = Date()
            let open = try await store.invites.createInvite(
                digest: "open", email: nil, createdBy: admin.id, expiresAt: now.addingTimeInterval(Self.hour))
            let named = try await store.invites.createInvite(
                digest: "named", email: "Carol@Example.com", createdBy: admin.id,
                expiresAt: now.addingTimeInterval(Self.hour))
            let stale = try await store.invites.createInvite(
                digest: "stale", email: nil, createdBy: admin.id, expiresAt: now.addingTimeInterval(-1))
            #expect(try await store.invites.invite(digest: "open") == open)
            #expect(try await store.invites.invite(digest: "unknown") == nil)
            #expect(try await store.invites.invites().map(\.id) == [stale.id, named.id, open.id])

            // A taken email rolls the whole redemption back: the invite stays usable.
            await #expect(throws: StoreError.duplicate) {
                _ = try await store.invites.redeemInvite(
                    id: open.id, email: "admin@example.com", passwordHash: "h", now: now)
            }
            #expect(try await store.invites.invite(digest: "open")?.usedAt == nil)
            let dave = try #require(
                try await store.invites.redeemInvite(
                    id: open.id, email: "dave@example.com", passwordHash: "h", now: now))
            #expect(!dave.isAdmin)
            let used = try #require(try await store.invites.invite(digest: "open"))
            #expect(used.usedBy == dave.id && used.usedAt != nil)
            #expect(
                try await store.invites.redeemInvite(
                    id: open.id, email: "eve@example.com", passwordHash: "h", now: now)
                    == nil)
            #expect(
                try await store.invites.redeemInvite(
                    id: stale.id, email: "eve@example.com", passwordHash: "h", now: now)
                    == nil)
            #expect(
                try await store.invites.redeemInvite(
                    id: named.id, email: "eve@example.com", passwordHash: "h", now: now)
                    == nil)
            #expect(try await store.accounts.user(email: "eve@example.com") == nil)
            #expect(
                try await store.invites.redeemInvite(
                    id: named.id, email: "carol@example.com", passwordHash: "h", now: now)?.email == "carol@example.com"
            )

            // Only unused invites can be withdrawn; the people who made and used them may go, the rows stay.
            await #expect(throws: StoreError.notFound) { try await store.invites.revokeInvite(id: open.id) }
            try await store.invites.revokeInvite(id: stale.id)
            #expect(try await store.invites.invite(digest: "stale") == nil)
            _ = try await store.accounts.deleteUser(id: dave.id)
            _ = try await store.accounts.deleteUser(id: admin.id)
            let orphan = try #require(try await store.invites.invite(digest: "open"))
            #expect(orphan.usedBy == nil && orphan.createdBy == nil && orphan.usedAt != nil)
        }
    }
}
