import Foundation
import ParleyCore
import Testing

/// Personal API keys and the admin's tool choices, the same on every database.
@Suite struct APIKeyAndToolChoiceStoreTests {
    @Test(
        "a key is found by its digest with its user until it expires, listed newest first, touched, and deleted by its owner or an admin only",
        arguments: StoreKind.allCases)
    func apiKeys(kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let alice = try await stores.accounts.createUser(
                email: "alice@example.com", passwordHash: "h", isAdmin: false)
            let bob = try await stores.accounts.createUser(email: "bob@example.com", passwordHash: "h", isAdmin: false)
            let now = Date()
            let lasting = try await stores.apiKeys.createKey(
                userID: alice.id, name: "scripts", digest: "d1", expiresAt: nil)
            let brief = try await stores.apiKeys.createKey(
                userID: alice.id, name: "brief", digest: "d2", expiresAt: now.addingTimeInterval(60))
            let bobs = try await stores.apiKeys.createKey(userID: bob.id, name: "bob's", digest: "d3", expiresAt: nil)
            await #expect(throws: StoreError.duplicate) {
                _ = try await stores.apiKeys.createKey(userID: bob.id, name: "again", digest: "d1", expiresAt: nil)
            }

            #expect(try await stores.apiKeys.keys(userID: alice.id) == [brief, lasting])
            let all = try await stores.apiKeys.allKeys()
            #expect(all.map(\.key) == [bobs, brief, lasting])
            #expect(all.map(\.email) == ["bob@example.com", "alice@example.com", "alice@example.com"])

            let found = try #require(try await stores.apiKeys.key(digest: "d1", now: now))
            #expect(found.key == lasting && found.user == alice)
            #expect(try await stores.apiKeys.key(digest: "d2", now: now)?.key == brief)
            #expect(try await stores.apiKeys.key(digest: "d2", now: now.addingTimeInterval(61)) == nil)
            #expect(try await stores.apiKeys.key(digest: "unknown", now: now) == nil)

            try await stores.apiKeys.touchKey(id: lasting.id, at: now)
            let touched = try await stores.apiKeys.keys(userID: alice.id).last?.lastUsedAt
            #expect(abs((touched ?? .distantPast).timeIntervalSince(now)) < 0.01)

            await #expect(throws: StoreError.notFound) {
                try await stores.apiKeys.deleteKey(id: bobs.id, userID: alice.id)
            }
            try await stores.apiKeys.deleteKey(id: brief.id, userID: alice.id)
            try await stores.apiKeys.deleteKey(id: bobs.id, userID: nil)
            await #expect(throws: StoreError.notFound) { try await stores.apiKeys.deleteKey(id: bobs.id, userID: nil) }
            #expect(try await stores.apiKeys.allKeys().map(\.key.id) == [lasting.id])
        }
    }

    @Test(
        "a tool choice replaces the one for the same server and tool; all are listed in order",
        arguments: StoreKind.allCases)
    func toolChoices(kind: StoreKind) async throws {
        try await kind.withStores { stores in
            #expect(try await stores.toolChoices.toolChoices().isEmpty)
            try await stores.toolChoices.setToolChoice(StoredToolChoice(server: "web", tool: "", enabled: false))
            try await stores.toolChoices.setToolChoice(
                StoredToolChoice(server: "db", tool: "query", enabled: true, confirm: true))
            try await stores.toolChoices.setToolChoice(StoredToolChoice(server: "web", tool: "", enabled: true))
            #expect(
                try await stores.toolChoices.toolChoices() == [
                    StoredToolChoice(server: "db", tool: "query", enabled: true, confirm: true),
                    StoredToolChoice(server: "web", tool: "", enabled: true),
                ])
        }
    }
}
