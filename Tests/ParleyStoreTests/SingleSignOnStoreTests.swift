import Foundation
import ParleyCore
import Testing

/// The accounts single sign-on makes and links, and the groups it copies, the same on every database.
@Suite struct SingleSignOnStoreTests {
    @Test(
        "an account made by sign-on has no password and its subject; the first is admin; a subject links once",
        arguments: StoreKind.allCases)
    func accounts(kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let sso = stores.singleSignOn
            let first = try await sso.createSSOUser(
                email: "ada@example.com", subject: "sub-1", allowWhenUsersExist: false)
            #expect(first.isAdmin && !first.hasPassword && first.ssoSubject == "sub-1")
            #expect(try await sso.user(ssoSubject: "sub-1") == first)
            await #expect(throws: StoreError.signupClosed) {
                _ = try await sso.createSSOUser(email: "bob@example.com", subject: "sub-2", allowWhenUsersExist: false)
            }
            await #expect(throws: StoreError.duplicate) {
                _ = try await sso.createSSOUser(email: "ADA@example.com", subject: "sub-3", allowWhenUsersExist: true)
            }
            #expect(try await sso.user(ssoSubject: "sub-3") == nil)

            let carol = try await stores.accounts.createUser(
                email: "carol@example.com", passwordHash: "h", isAdmin: false)
            try await sso.linkSSOSubject("sub-4", userID: carol.id)
            #expect(try await sso.user(ssoSubject: "sub-4")?.id == carol.id)
            await #expect(throws: StoreError.duplicate) { try await sso.linkSSOSubject("sub-1", userID: carol.id) }
            await #expect(throws: StoreError.notFound) { try await sso.linkSSOSubject("sub-5", userID: 999) }
        }
    }

    @Test(
        "a pending sign-in is taken once, within its lifetime; saving drops the expired ones",
        arguments: StoreKind.allCases)
    func pendingSignIns(kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let sso = stores.singleSignOn
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let signIn = PendingSignIn(
                codeVerifier: "verifier", nonce: "nonce", next: "/c/1", expiresAt: now.addingTimeInterval(600))
            try await sso.savePendingSignIn(signIn, stateDigest: "d1", now: now)
            #expect(try await sso.takePendingSignIn(stateDigest: "d1", now: now) == signIn)
            #expect(try await sso.takePendingSignIn(stateDigest: "d1", now: now) == nil)
            #expect(try await sso.takePendingSignIn(stateDigest: "unknown", now: now) == nil)

            try await sso.savePendingSignIn(signIn, stateDigest: "late", now: now)
            #expect(try await sso.takePendingSignIn(stateDigest: "late", now: now.addingTimeInterval(601)) == nil)
            try await sso.savePendingSignIn(signIn, stateDigest: "old", now: now)
            try await sso.savePendingSignIn(signIn, stateDigest: "new", now: now.addingTimeInterval(700))
            #expect(try await stores.count("SELECT COUNT(*) FROM pending_sign_ins") == 1)
        }
    }

    @Test(
        "the provider's groups become exactly the user's provider groups; groups made in Parley keep their members",
        arguments: StoreKind.allCases)
    func groups(kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let ada = try await stores.singleSignOn.createSSOUser(
                email: "ada@example.com", subject: "sub-1", allowWhenUsersExist: true)
            let local = try await stores.groups.createGroup(name: "Local")
            try await stores.groups.addMember(userID: ada.id, groupID: local.id)

            try await stores.singleSignOn.setSSOGroups(["Engineering", "Research"], userID: ada.id)
            var groups = try await stores.groups.groups()
            #expect(groups.map(\.name) == ["Engineering", "Local", "Research"])
            #expect(groups.map(\.fromSSO) == [true, false, true])
            #expect(groups.allSatisfy { $0.memberCount == 1 })

            try await stores.singleSignOn.setSSOGroups(["research"], userID: ada.id)
            groups = try await stores.groups.groups()
            #expect(groups.map(\.name) == ["Engineering", "Local", "Research"])
            #expect(groups.map(\.memberCount) == [0, 1, 1])
            try await stores.singleSignOn.setSSOGroups([], userID: ada.id)
            #expect(try await stores.groups.groups().map(\.memberCount) == [0, 1, 0])
        }
    }
}
