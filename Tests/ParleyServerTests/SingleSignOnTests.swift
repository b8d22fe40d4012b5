import Foundation
import GRDB
import ParleyStore
import Testing

@testable import ParleyCore
@testable import ParleyServer

/// Single sign-on against a real OpenID Connect provider (oidc-provider-mock, started on loopback): the whole
/// authorization-code round trip, account linking and creation, groups and admin copied from the provider, and the
/// refusals (cancelled, replayed state, another browser's callback, a tampered, unsigned, foreign or expired ID token,
/// the provider down at start-up).
@Suite("Single sign-on", .serialized)
struct SingleSignOnTests {
    /// Where the provider sends browsers back to (Parley's public address, as `PARLEY_PUBLIC_URL` gives it).
    static let publicURL = "https://chat.example.com"

    /// Runs `body` with a provider and a Parley configured for it (admins: the provider group `parley-admins`).
    static func withSingleSignOn(
        configure: @escaping (inout ServerSettings) -> Void = { _ in },
        _ body: (OpenIDProviderProcess, TestServer) async throws -> Void
    ) async throws {
        try await OpenIDProviderProcess.with { provider in
            try await withTestServer(configure: { settings in
                var sso = SingleSignOnSettings(
                    issuer: provider.issuer, clientID: "parley", clientSecret: "s3cret", publicURL: Self.publicURL)
                sso.adminGroups = ["parley-admins"]
                settings.singleSignOn = sso
                configure(&settings)
            }) { server in
                try await body(provider, server)
            }
        }
    }

    /// The address the provider sent the browser back to, as a path on the test server (it must be the callback at
    /// the public address).
    static func callbackPath(_ back: String) throws -> String {
        let prefix = publicURL + "/auth/sso/callback?"
        guard back.hasPrefix(prefix) else { throw TestFailure("the provider sent the browser to \(back)") }
        return "/auth/sso/callback?" + back.dropFirst(prefix.count)
    }

    /// Signs `subject` in through the provider in `browser`; returns Parley's answer to the callback.
    static func signIn(
        _ browser: inout Browser, _ provider: OpenIDProviderProcess, as subject: String, next: String? = nil
    ) async throws -> TestResponse {
        let start = try await browser.get("/auth/sso" + (next.map { "?next=" + $0 } ?? ""))
        #expect(start.status == 303)
        let authorize = try #require(start.location)
        #expect(authorize.hasPrefix(provider.issuer + "/oauth2/authorize?"))
        let back = try await provider.authorize(authorize, as: subject)
        return try await browser.get(try callbackPath(back))
    }

    /// The account with `email`, read from the server's database.
    static func user(_ server: TestServer, _ email: String) async throws -> User? {
        try await SQLiteAccountStore(database: try ParleyDatabase(directory: server.dataDirectory)).user(email: email)
    }

    /// The names of the user's groups and whether each came from the provider.
    static func groups(_ server: TestServer, userID: UserID) throws -> [String: Bool] {
        let database = try ParleyDatabase(directory: server.dataDirectory)
        return try database.pool.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT name, from_sso FROM user_groups JOIN group_members ON group_id = id WHERE user_id = ?
                    """, arguments: [userID])
            return Dictionary(uniqueKeysWithValues: rows.map { ($0["name"] as String, $0["from_sso"] as Bool) })
        }
    }

    /// The number of rows in a table.
    static func count(_ server: TestServer, _ table: String) throws -> Int {
        try ParleyDatabase(directory: server.dataDirectory).pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0
        }
    }

    @Test func aFirstSignInCreatesTheAccountCopiesGroupsAndOpensWhereThePersonWasGoing() async throws {
        try await Self.withSingleSignOn(configure: { $0.signup = .sso }) { provider, server in
            // Someone else is the first account, and so the admin.
            _ = try await SQLiteAccountStore(database: try ParleyDatabase(directory: server.dataDirectory))
                .createUser(email: "founder@example.com", passwordHash: User.noPasswordHash, isAdmin: true)
            try await provider.setPerson(
                "ann", email: "ann@example.com", groups: ["staff", "research"], name: "Ann Lee")
            var browser = server.browser()
            let back = try await Self.signIn(&browser, provider, as: "ann", next: "/settings")
            #expect(back.status == 303)
            #expect(back.location == "/settings")
            #expect(try await browser.get("/settings").body.contains("Ann Lee"))
            let ann = try #require(try await Self.user(server, "ann@example.com"))
            #expect(ann.ssoSubject == "ann")
            #expect(ann.displayName == "Ann Lee")
            #expect(!ann.isAdmin)
            #expect(!ann.hasPassword)
            #expect(try Self.groups(server, userID: ann.id) == ["staff": true, "research": true])
            // A password cannot open an account made by single sign-on.
            var guesser = server.browser()
            let guess = try await guesser.post(
                "/login", form: ["email": "ann@example.com", "password": User.noPasswordHash])
            #expect(guess.status == 401)

            // The next sign-in copies the provider's groups again: one left, one new.
            try await provider.setPerson("ann", email: "ann@example.com", groups: ["research", "parley-admins"])
            var again = server.browser()
            #expect(try await Self.signIn(&again, provider, as: "ann").location == "/c")
            #expect(try Self.groups(server, userID: ann.id) == ["research": true, "parley-admins": true])
            #expect(try await Self.user(server, "ann@example.com")?.isAdmin == true)
            #expect(try await again.get("/admin/users").status == 200)
            // The provider's groups are on the admin's groups page, marked as such.
            let groupsPage = try await again.get("/admin/groups").body
            #expect(groupsPage.contains(#"research</a> <span class="tag">SSO</span>"#))

            // Leaving the admin group removes admin at the next sign-in.
            try await provider.setPerson("ann", email: "ann@example.com", groups: ["research"])
            var later = server.browser()
            _ = try await Self.signIn(&later, provider, as: "ann")
            #expect(try await Self.user(server, "ann@example.com")?.isAdmin == false)
            #expect(try await later.get("/admin/users").status == 403)
            #expect(try Self.count(server, "users") == 2)
        }
    }

    @Test func aVerifiedEmailLinksTheExistingAccountAndAnUnverifiedOneDoesNot() async throws {
        try await Self.withSingleSignOn { provider, server in
            var owner = server.browser()
            _ = try await owner.signUp("carol@example.com")
            let carol = try #require(try await Self.user(server, "carol@example.com"))
            try await provider.setPerson("carol-at-idp", email: "carol@example.com", verified: false)
            var browser = server.browser()
            let refused = try await Self.signIn(&browser, provider, as: "carol-at-idp")
            #expect(refused.location == "/login?sso=unverified-email")
            let page = try await browser.get(try #require(refused.location))
            #expect(page.status == 401)
            #expect(page.body.contains("has not verified the email"))
            #expect(try await Self.user(server, "carol@example.com")?.ssoSubject == nil)

            try await provider.setPerson("carol-at-idp", email: "carol@example.com", verified: true)
            let linked = try await Self.signIn(&browser, provider, as: "carol-at-idp")
            #expect(linked.location == "/c")
            let after = try #require(try await Self.user(server, "carol@example.com"))
            #expect(after.id == carol.id)
            #expect(after.ssoSubject == "carol-at-idp")
            // Admin follows the provider's admin groups from now on, and carol is in none.
            #expect(!after.isAdmin)
            // The password still works, and another identity with the same email cannot take the account.
            var withPassword = server.browser()
            #expect(try await withPassword.signIn("carol@example.com").status == 303)
            try await provider.setPerson("impostor", email: "carol@example.com", verified: true)
            var impostor = server.browser()
            #expect(
                try await Self.signIn(&impostor, provider, as: "impostor").location == "/login?sso=linked-elsewhere")
            #expect(try Self.count(server, "users") == 1)
        }
    }

    @Test func closedSignUpTurnsNewPeopleAwayAndMakesNoAccount() async throws {
        try await Self.withSingleSignOn(configure: { $0.signup = .closed }) { provider, server in
            try await provider.setPerson("dan", email: "dan@example.com")
            var browser = server.browser()
            let refused = try await Self.signIn(&browser, provider, as: "dan")
            #expect(refused.location == "/login?sso=no-account")
            #expect(try await browser.get("/login?sso=no-account").body.contains("sign-up is closed"))
            #expect(try Self.count(server, "users") == 0)
            #expect(try Self.count(server, "sessions") == 0)
        }
    }

    @Test func aCancelledSignInComesBackToTheSignInPageKeepingWhereToGo() async throws {
        try await Self.withSingleSignOn { provider, server in
            var browser = server.browser()
            let start = try await browser.get("/auth/sso?next=/c/7")
            let back = try await provider.authorize(try #require(start.location), as: "", deny: true)
            let answer = try await browser.get(try Self.callbackPath(back))
            // This provider leaves the state out of its refusal, so where the person was going is not known.
            #expect(answer.location == "/login?sso=cancelled")
            let page = try await browser.get(try #require(answer.location))
            #expect(page.status == 401)
            #expect(page.body.contains("Single sign-on was cancelled"))
            #expect(try Self.count(server, "users") == 0)
            #expect(try await browser.get("/login?next=/c/7").body.contains(#"href="/auth/sso?next=%2Fc%2F7""#))
            // Another site's address is never where a sign-in goes.
            let offsite = try await browser.get("/auth/sso?next=//evil.example")
            #expect(try #require(offsite.location).contains("state="))
            try await provider.setPerson("erin", email: "erin@example.com")
            let back2 = try await provider.authorize(try #require(offsite.location), as: "erin")
            #expect(try await browser.get(try Self.callbackPath(back2)).location == "/c")
        }
    }

    @Test func aStateIsGoodOnceAndOnlyInTheBrowserThatBeganTheSignIn() async throws {
        try await Self.withSingleSignOn { provider, server in
            try await provider.setPerson("fay", email: "fay@example.com")
            // A callback opened in another browser (a login forced on someone) is refused and uses up nothing.
            var victim = server.browser()
            var attacker = server.browser()
            let start = try await attacker.get("/auth/sso")
            let callback = try Self.callbackPath(try await provider.authorize(try #require(start.location), as: "fay"))
            #expect(try await victim.get(callback).location == "/login?sso=expired")
            #expect(try Self.count(server, "users") == 0)
            // The browser that began it signs in, once; the same answer again is refused.
            let stateCookie = try #require(attacker.cookies[SingleSignOnController.cookieName])
            #expect(try await attacker.get(callback).location == "/c")
            attacker.cookies[SingleSignOnController.cookieName] = stateCookie
            #expect(try await attacker.get(callback).location == "/login?sso=expired")
            #expect(try Self.count(server, "sessions") == 1)
            // Without any state at all.
            #expect(try await attacker.get("/auth/sso/callback?code=x").location == "/login?sso=expired")
            // Beginning sign-ins without end is cut off per address (each holds a place until it expires).
            var flood = server.browser()
            var answers: [String] = []
            for _ in 0..<31 { answers.append(try await flood.get("/auth/sso").location ?? "") }
            #expect(answers.filter { $0.hasPrefix(provider.issuer) }.count == 29)  // 30 a minute, one begun above
            #expect(answers.last == "/login?sso=too-many")
        }
    }

    @Test(arguments: ["tampered", "unsigned", "foreign-audience"])
    func anIDTokenThatFailsACheckSignsNobodyIn(fault: String) async throws {
        try await Self.withSingleSignOn { provider, server in
            try await provider.setPerson("gus", email: "gus@example.com")
            try await provider.setFault(fault)
            var browser = server.browser()
            let refused = try await Self.signIn(&browser, provider, as: "gus")
            #expect(refused.location == "/login?sso=rejected")
            #expect(try await browser.get("/login?sso=rejected").body.contains("could not be verified"))
            #expect(try Self.count(server, "users") == 0)
            #expect(try Self.count(server, "sessions") == 0)
            // The same provider, behaving, signs the person in.
            try await provider.setFault("")
            #expect(try await Self.signIn(&browser, provider, as: "gus").location == "/c")
        }
    }

    /// The provider's ID tokens live an hour; Parley's clock moved past that (and the allowed skew) finds them expired.
    @Test func anExpiredIDTokenSignsNobodyIn() async throws {
        let clock = MovableWallClock()
        try await Self.withSingleSignOn(configure: { settings in
            settings.wallClock = { clock.now }
        }) { provider, server in
            try await provider.setPerson("hal", email: "hal@example.com")
            var browser = server.browser()
            // A sign-in begun and finished within its ten minutes, at a time past the token's hour.
            clock.move(by: 3_700)
            let start = try await browser.get("/auth/sso")
            let callback = try Self.callbackPath(try await provider.authorize(try #require(start.location), as: "hal"))
            #expect(try await browser.get(callback).location == "/login?sso=rejected")
            #expect(try Self.count(server, "users") == 0)
            clock.move(by: -3_700)
            #expect(try await Self.signIn(&browser, provider, as: "hal").location == "/c")
        }
    }

    @Test func theProviderDownAtStartUpLeavesPasswordsWorkingAndSaysSo() async throws {
        var closedPort = 0
        try await OpenIDProviderProcess.with { provider in closedPort = provider.port }
        try await withTestServer(configure: { settings in
            settings.singleSignOn = SingleSignOnSettings(
                issuer: "http://127.0.0.1:\(closedPort)", clientID: "parley", clientSecret: nil,
                publicURL: Self.publicURL)
        }) { server in
            var browser = server.browser()
            _ = try await browser.signUp("ivy@example.com")
            var other = server.browser()
            #expect(try await other.get("/auth/sso").location == "/login?sso=unavailable")
            let page = try await other.get("/login")
            #expect(page.body.contains("Single sign-on is unavailable right now"))
            #expect(page.body.contains(#"href="/auth/sso""#))
            #expect(try await other.signIn("ivy@example.com").location == "/c")
        }
    }

    @Test func withPasswordSignInOffOnlyAdminsUseAPassword() async throws {
        try await Self.withSingleSignOn(configure: {
            $0.passwordLogin = false; $0.signup = .open
        }) { provider, server in
            try await provider.setPerson("jo", email: "jo@example.com")
            var jo = server.browser()
            _ = try await Self.signIn(&jo, provider, as: "jo")  // the first account: an admin
            let store = SQLiteAccountStore(database: try ParleyDatabase(directory: server.dataDirectory))
            let hasher = PasswordHasher(cost: 4)
            let admin = try await store.createUser(
                email: "root@example.com", passwordHash: try await hasher.hash("correct horse battery"), isAdmin: true)
            let member = try await store.createUser(
                email: "kim@example.com", passwordHash: try await hasher.hash("correct horse battery"), isAdmin: false)
            var browser = server.browser()
            let page = try await browser.get("/login")
            #expect(page.body.contains("Administrators: sign in with a password"))
            #expect(!page.body.contains("/signup"))
            #expect(try await browser.signIn(admin.email).location == "/c")
            var memberBrowser = server.browser()
            let refused = try await memberBrowser.signIn(member.email)
            #expect(refused.status == 403)
            #expect(refused.body.contains("Password sign-in is turned off"))
            #expect(try await memberBrowser.get("/c").status == 303)
            let signUp = try await memberBrowser.post("/signup", form: ["email": "new@example.com", "password": "x"])
            #expect(signUp.status == 403)
            // Invites make password accounts, so they are refused too.
            let invite = try await browser.post("/admin/invites", form: ["email": "new@example.com"])
            #expect(invite.status == 422)
            #expect(invite.body.contains("password sign-in is off"))
            #expect(try Self.count(server, "users") == 3)
        }
    }

    @Test func settingsNameWhatIsMissing() throws {
        let base = ["PARLEY_OIDC_ISSUER": "https://id.example.com/realms/team"]
        #expect(throws: SettingsError.self) { try ServerSettings(environment: base) }
        #expect(throws: SettingsError.self) {
            try ServerSettings(environment: base.merging(["PARLEY_OIDC_CLIENT_ID": "parley"]) { $1 })
        }
        #expect(throws: SettingsError.self) { try ServerSettings(environment: ["PARLEY_PASSWORD_LOGIN": "off"]) }
        #expect(throws: SettingsError.self) {
            try ServerSettings(environment: ["PARLEY_OIDC_ISSUER": "ftp://id.example.com"])
        }
        let settings = try ServerSettings(
            environment: base.merging([
                "PARLEY_OIDC_CLIENT_ID": "parley", "PARLEY_PUBLIC_URL": "https://chat.example.com/",
                "PARLEY_OIDC_ADMIN_GROUPS": "admins, ops ,", "PARLEY_OIDC_SCOPES": "openid email groups",
                "PARLEY_PASSWORD_LOGIN": "off", "PARLEY_SIGNUP": "sso",
            ]) { $1 })
        let sso = try #require(settings.singleSignOn)
        #expect(sso.redirectURI == "https://chat.example.com/auth/sso/callback")
        #expect(sso.adminGroups == ["admins", "ops"])
        #expect(sso.scopes == "openid email groups")
        #expect(sso.discoveryURL == "https://id.example.com/realms/team/.well-known/openid-configuration")
        #expect(!settings.passwordLogin)
        #expect(settings.signup == .sso)
        #expect(throws: SettingsError.self) {
            try ServerSettings(
                environment: base.merging([
                    "PARLEY_OIDC_CLIENT_ID": "parley", "PARLEY_PUBLIC_URL": "https://chat.example.com",
                    "PARLEY_OIDC_SCOPES": "email profile",
                ]) { $1 })
        }
    }

    @Test func theCodeChallengeIsRFC7636s() {
        // RFC 7636, appendix B.
        let signIn = PendingSignIn(
            codeVerifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", nonce: "n", next: "/c", expiresAt: Date())
        #expect(signIn.codeChallenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test func groupClaimsAreReadByDottedPaths() {
        let claims: [String: Any] = [
            "groups": ["a", "b", 3], "realm_access": ["roles": ["admin"]], "team": "blue",
        ]
        #expect(ClaimPath("groups").strings(in: claims) == ["a", "b"])
        #expect(ClaimPath("realm_access.roles").strings(in: claims) == ["admin"])
        #expect(ClaimPath("team").strings(in: claims) == ["blue"])
        #expect(ClaimPath("missing.path").strings(in: claims) == nil)
        #expect(
            SingleSignOnAccounts.groupNames([" a ", "A", "", "b\u{7}", String(repeating: "x", count: 201), "c"])
                == ["a", "c"])
    }
}
