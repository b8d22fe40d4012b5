import Foundation
import ParleyCore
import Testing

/// What admins change of accounts, the same on every database.
@Suite struct UserAdminStoreTests {
    @Test(
        "accounts are listed by email whatever its case; disabling and a new password sign the user out, making admin does not",
        arguments: StoreKind.allCases)
    func accountChanges(kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let carol = try await stores.accounts.createUser(
                email: "carol@example.com", passwordHash: "h", isAdmin: false)
            let bob = try await stores.accounts.createUser(email: "Bob@example.com", passwordHash: "h", isAdmin: false)
            let alice = try await stores.accounts.createUser(
                email: "alice@example.com", passwordHash: "h", isAdmin: true)
            #expect(try await stores.admin.accounts().map(\.user.id) == [alice.id, bob.id, carol.id])
            #expect(try await stores.admin.account(id: bob.id)?.user == bob)
            #expect(try await stores.admin.account(id: 999) == nil)

            let expiry = Date().addingTimeInterval(3600)
            for (id, user) in [("b1", bob.id), ("c1", carol.id), ("c2", carol.id)] {
                try await stores.accounts.createSession(
                    Session(id: id, userID: user, expiresAt: expiry), origin: .unknown)
            }
            try await stores.admin.setAdmin(true, userID: bob.id)
            #expect(try await stores.admin.account(id: bob.id)?.user.isAdmin == true)
            #expect(try await stores.accounts.session(id: "b1", now: Date()) != nil)
            try await stores.admin.setDisabled(true, userID: bob.id)
            #expect(try await stores.admin.account(id: bob.id)?.user.isDisabled == true)
            #expect(try await stores.accounts.session(id: "b1", now: Date()) == nil)
            try await stores.admin.setDisabled(false, userID: bob.id)
            #expect(try await stores.admin.account(id: bob.id)?.user.isDisabled == false)
            try await stores.admin.setPasswordHash("reset", userID: carol.id)
            #expect(try await stores.accounts.user(email: "carol@example.com")?.passwordHash == "reset")
            #expect(try await stores.accounts.sessions(userID: carol.id, now: Date()).isEmpty)

            for change in [
                { try await stores.admin.setAdmin(true, userID: 999) },
                { try await stores.admin.setDisabled(true, userID: 999) },
                { try await stores.admin.setPasswordHash("x", userID: 999) },
                { try await stores.admin.setMonthlyBudget(1, userID: 999) },
                { try await stores.admin.setStorageQuota(1, userID: 999) },
            ] as [() async throws -> Void] {
                await #expect(throws: StoreError.notFound) { try await change() }
            }
        }
    }

    @Test(
        "budgets and quotas: a user's own, else the default, else none for budgets and 1 GiB for quotas",
        arguments: StoreKind.allCases)
    func budgetsAndQuotas(kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let alice = try await stores.accounts.createUser(
                email: "alice@example.com", passwordHash: "h", isAdmin: false)
            #expect(try await stores.admin.defaultMonthlyBudget() == nil)
            try await stores.admin.setDefaultMonthlyBudget(5_000_000)
            #expect(try await stores.admin.defaultMonthlyBudget() == 5_000_000)
            try await stores.admin.setDefaultMonthlyBudget(nil)
            #expect(try await stores.admin.defaultMonthlyBudget() == nil)
            try await stores.admin.setMonthlyBudget(2_000_000, userID: alice.id)
            #expect(try await stores.admin.account(id: alice.id)?.monthlyBudgetMicros == 2_000_000)
            try await stores.admin.setMonthlyBudget(nil, userID: alice.id)
            #expect(try await stores.admin.account(id: alice.id)?.monthlyBudgetMicros == nil)

            #expect(
                try await stores.admin.storage(userID: alice.id)
                    == StorageStatus(storedBytes: 0, quotaBytes: StorageStatus.fallbackQuotaBytes))
            try await stores.admin.setDefaultStorageQuota(10_000)
            #expect(try await stores.admin.storage(userID: alice.id).quotaBytes == 10_000)
            try await stores.admin.setStorageQuota(20_000, userID: alice.id)
            #expect(try await stores.admin.storage(userID: alice.id).quotaBytes == 20_000)
            #expect(try await stores.admin.account(id: alice.id)?.storageQuotaBytes == 20_000)
            try await stores.admin.setStorageQuota(nil, userID: alice.id)
            #expect(try await stores.admin.storage(userID: alice.id).quotaBytes == 10_000)
        }
    }
}
