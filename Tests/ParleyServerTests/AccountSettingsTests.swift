import Foundation
import GRDB
import NIOHTTP1
import ParleyCore
import ParleyStore
import Testing

@testable import ParleyServer

/// Settings → Account against a live server: the display name, changing the password, and the sessions list, for
/// the browser and the JSON API, with bad input and other people's sessions.
@Suite("Account settings")
struct AccountSettingsTests {
    static let firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0"
    static let password = "correct horse battery"

    /// A browser signed in as `email` through the sign-in form, sending `userAgent`.
    static func signedIn(_ server: TestServer, _ email: String, userAgent: String) async throws -> Browser {
        var browser = server.browser()
        _ = try await browser.get("/login")
        let response = try await browser.post(
            "/login", form: ["email": email, "password": password], headers: [("User-Agent", userAgent)])
        try #require(response.status == 303, "signing in answered \(response.status)")
        return browser
    }

    /// The `User` row as stored, read from the server's file.
    static func stored(_ server: TestServer, _ email: String) async throws -> User? {
        try await SQLiteAccountStore(database: server.database()).user(email: email)
    }

    /// The handles of the sign-out forms on the account page, in its order.
    static func handles(_ page: String) -> [String] {
        page.matches(of: /\/settings\/sessions\/([0-9a-f]+)\/sign-out/).map { String($0.1) }
    }

    @Test("a display name is shown in the header and the admin's list and by /api/me; bad names change nothing")
    func displayName() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var (admin, _) = try await server.signUp("admin@example.com")
            var (browser, api) = try await server.signUp("user@example.com")
            #expect(try await browser.get("/settings").body.contains(#"href="/settings/account""#))
            let saved = try await browser.post("/settings/display-name", form: ["display_name": "  Ada Lovelace  "])
            #expect(saved.status == 303 && saved.location == "/settings/account?done=name")
            let page = try await browser.get("/settings/account?done=name")
            #expect(page.body.contains("Your display name was saved."))
            #expect(page.body.contains(#"<span class="who">Ada Lovelace</span>"#))
            #expect(try await browser.get("/c").body.contains(#"<span class="who">Ada Lovelace</span>"#))
            let me = try await api.request(.GET, "/api/me").json()
            #expect(me["display_name"] as? String == "Ada Lovelace" && me["email"] as? String == "user@example.com")
            #expect(me["is_admin"] as? Bool == false)
            let users = try await admin.get("/admin/users").body
            #expect(users.contains(">Ada Lovelace</a>") && users.contains("user@example.com"))

            // Refused, each with the form again and the name kept: empty, blank, too long, control and bidi
            // characters, a repeated field, a body past the limit, and no CSRF token.
            for name in ["", "   ", String(repeating: "n", count: 81), "Ada\u{0}", "A\u{202E}da", "Bell\u{7}"] {
                let refused = try await browser.post("/settings/display-name", form: ["display_name": name])
                #expect(refused.status == 422, "\(name.debugDescription) answered \(refused.status)")
                #expect(refused.body.contains("A display name needs 1 to 80 characters"))
            }
            let repeated = try await browser.send(
                .POST, "/settings/display-name",
                headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: "csrf_token=\(browser.csrfToken ?? "")&display_name=a&display_name=b")
            #expect(repeated.status == 400)
            let huge = try await browser.post(
                "/settings/display-name", form: ["display_name": String(repeating: "x", count: 2 << 20)])
            #expect(huge.status == 413)
            #expect(
                try await browser.post("/settings/display-name", form: ["display_name": "Eve"], csrf: false).status
                    == 403)
            #expect(try await Self.stored(server, "user@example.com")?.displayName == "Ada Lovelace")

            // Eighty characters with emoji (counted as characters) are fine; clearing shows the email again.
            let eighty = String(repeating: "👩‍💻", count: 80)
            #expect(try await browser.post("/settings/display-name", form: ["display_name": eighty]).status == 303)
            #expect(try await Self.stored(server, "user@example.com")?.displayName == eighty)
            #expect(try await browser.post("/settings/display-name", form: ["clear": "1"]).status == 303)
            #expect(try await Self.stored(server, "user@example.com")?.displayName == nil)
            #expect(try await browser.get("/c").body.contains(#"<span class="who">user@example.com</span>"#))
            #expect(try await api.request(.GET, "/api/me").json()["display_name"] == nil)
        }
    }

    @Test("a hostile display name is only text, on every page that shows it")
    func hostileDisplayName() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var (admin, _) = try await server.signUp("admin@example.com")
            var (browser, _) = try await server.signUp("user@example.com")
            // HostileText's own text is longer than a name may be: the same markup, shorter.
            let hostile = #"<script>alert(1)</script>"'><svg/onload=alert(2)>{{email}}"#
            let escaped = "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&gt;&lt;svg/onload=alert(2)&gt;{{email}}"
            #expect(try await browser.post("/settings/display-name", form: ["display_name": hostile]).status == 303)
            InertHTML.expectShows(try await browser.get("/settings/account"), "account page", [escaped])
            InertHTML.expectShows(try await browser.get("/c"), "conversation list", [escaped])
            InertHTML.expectShows(try await admin.get("/admin/users"), "admin's users", [escaped])
            let id = try await server.database().userID("user@example.com")
            InertHTML.expectShows(try await admin.get("/admin/users/\(id)"), "admin's user page", [escaped])
        }
    }

    @Test("changing the password signs out every other session, API tokens included, and keeps this one")
    func changePassword() async throws {
        try await withTestServer { server in
            var (browser, api) = try await server.signUp("user@example.com")
            var other = try await Self.signedIn(server, "user@example.com", userAgent: Self.firefox)
            let new = "a brand new passphrase"
            let changed = try await browser.post(
                "/settings/password",
                form: ["current_password": Self.password, "new_password": new, "confirm_password": new])
            #expect(changed.status == 303 && changed.location == "/settings/account?done=password")
            #expect(try await browser.get("/settings/account").status == 200)
            #expect(try await other.get("/c").location?.hasPrefix("/login") == true)
            #expect(try await api.request(.GET, "/api/me").status == 401)
            var fresh = server.browser()
            #expect(try await fresh.signIn("user@example.com", password: Self.password).status == 401)
            #expect(try await fresh.signIn("user@example.com", password: new).status == 303)
            #expect(
                try await SQLiteAccountStore(database: server.database()).sessions(
                    userID: 1, now: Date()
                ).count == 2)
        }
    }

    @Test("a wrong current password, a weak or mismatched new one, or no CSRF token change nothing")
    func badPasswordChanges() async throws {
        try await withTestServer { server in
            var (browser, api) = try await server.signUp("user@example.com")
            var other = try await Self.signedIn(server, "user@example.com", userAgent: Self.firefox)
            let hash = try await Self.stored(server, "user@example.com")?.passwordHash
            let cases: [([String: String], Int, String)] = [
                (
                    [
                        "current_password": "not it", "new_password": "long enough one",
                        "confirm_password": "long enough one",
                    ],
                    400, "That is not your current password; nothing was changed."
                ),
                (
                    ["current_password": Self.password, "new_password": "short", "confirm_password": "short"], 422,
                    "A password needs at least 8 characters."
                ),
                (
                    [
                        "current_password": Self.password, "new_password": String(repeating: "é", count: 40),
                        "confirm_password": String(repeating: "é", count: 40),
                    ], 422, "at most 72 bytes"
                ),
                (
                    [
                        "current_password": Self.password, "new_password": "long enough one",
                        "confirm_password": "other one",
                    ],
                    422, "The new password and its confirmation differ"
                ),
                ([:], 422, "A password needs at least 8 characters."),
            ]
            for (form, status, message) in cases {
                let refused = try await browser.post("/settings/password", form: form)
                #expect(refused.status == status, "\(form.keys.sorted()) answered \(refused.status)")
                #expect(refused.body.contains(message), "\(form.keys.sorted()) does not say \(message)")
                #expect(refused.body.contains(#"name="current_password""#))
            }
            let forged = try await browser.post(
                "/settings/password",
                form: [
                    "current_password": Self.password, "new_password": "long enough one",
                    "confirm_password": "long enough one",
                ],
                csrf: false)
            #expect(forged.status == 403)
            #expect(try await Self.stored(server, "user@example.com")?.passwordHash == hash)
            #expect(try await other.get("/c").status == 200)
            #expect(try await api.request(.GET, "/api/me").status == 200)
        }
    }

    @Test("wrong current passwords are throttled as failed sign-ins are: 429 with Retry-After, the right one too")
    func throttled() async throws {
        try await withTestServer { server in
            var (browser, _) = try await server.signUp("user@example.com")
            let wrong = [
                "current_password": "wrong", "new_password": "long enough one", "confirm_password": "long enough one",
            ]
            for _ in 0..<10 { #expect(try await browser.post("/settings/password", form: wrong).status == 400) }
            let refused = try await browser.post("/settings/password", form: wrong)
            #expect(refused.status == 429 && refused.headers.first(name: "retry-after") != nil)
            var right = wrong
            right["current_password"] = Self.password
            #expect(try await browser.post("/settings/password", form: right).status == 429)
            #expect(try await browser.signIn("user@example.com").status == 429)
        }
    }

    @Test("POST /api/account/password: 204 and the other sessions end; bad bodies get their status and change nothing")
    func apiPasswordChange() async throws {
        try await withTestServer { server in
            var (browser, api) = try await server.signUp("user@example.com")
            let hash = try await Self.stored(server, "user@example.com")?.passwordHash
            let wrong = try await api.request(
                .POST, "/api/account/password", json: ["current_password": "nope", "new_password": "long enough one"])
            #expect(wrong.status == 400)
            #expect((try wrong.json()["error"] as? [String: Any])?["code"] as? String == "wrong_password")
            let weak = try await api.request(
                .POST, "/api/account/password", json: ["current_password": Self.password, "new_password": "short"])
            #expect(weak.status == 422)
            let form = try await api.request(
                .POST, "/api/account/password", headers: [("Content-Type", "application/x-www-form-urlencoded")])
            #expect(form.status == 415)
            let broken = try await api.request(
                .POST, "/api/account/password", json: ["current_password": 12, "new_password": ["x"]])
            #expect(broken.status == 400)
            let anonymous = try await APIClient(server: server).request(.POST, "/api/account/password", json: [:])
            #expect([401, 403].contains(anonymous.status))
            #expect(try await Self.stored(server, "user@example.com")?.passwordHash == hash)

            let changed = try await api.request(
                .POST, "/api/account/password",
                json: ["current_password": Self.password, "new_password": "long enough one"])
            #expect(changed.status == 204)
            #expect(try await api.request(.GET, "/api/me").status == 200)
            #expect(try await browser.get("/c").location?.hasPrefix("/login") == true)
        }
    }

    @Test("an account without a password (single sign-on) is told so, and nothing is asked or changed")
    func noPassword() async throws {
        try await withTestServer { server in
            var (browser, api) = try await server.signUp("user@example.com")
            try await server.database().pool.write { db in
                try db.execute(sql: "UPDATE users SET password_hash = ?", arguments: [User.noPasswordHash])
            }
            let page = try await browser.get("/settings/account")
            #expect(
                page.body.contains("signs in with single sign-on") && !page.body.contains(#"name="current_password""#))
            let refused = try await browser.post(
                "/settings/password",
                form: ["current_password": "", "new_password": "long enough one", "confirm_password": "other"])
            #expect(refused.status == 400)
            #expect(
                refused.body.contains("This account signs in with single sign-on, so it has no password to change."))
            let apiRefused = try await api.request(
                .POST, "/api/account/password", json: ["current_password": "", "new_password": "long enough one"])
            #expect(apiRefused.status == 400)
            #expect((try apiRefused.json()["error"] as? [String: Any])?["code"] as? String == "no_password")
            #expect(try await Self.stored(server, "user@example.com")?.passwordHash == User.noPasswordHash)
        }
    }

    @Test("the sessions list names each device and address, marks this one, shows no session id, and signs one out")
    func sessions() async throws {
        try await withTestServer { server in
            _ = try await server.signUp("user@example.com")
            var phone = try await Self.signedIn(
                server, "user@example.com",
                userAgent:
                    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/131.0 Mobile Safari/537.36")
            var laptop = try await Self.signedIn(server, "user@example.com", userAgent: Self.firefox)
            let page = try await laptop.get("/settings/account")
            #expect(page.body.contains("Firefox on Linux <span class=\"tag\">This device</span>"))
            #expect(page.body.contains("Chrome on Android"))
            #expect(page.body.contains("curl") == false)
            #expect(page.body.contains("127.0.0.1"))
            let ids = try await SQLiteAccountStore(database: server.database()).sessions(userID: 1, now: Date()).map(
                \.id)
            #expect(ids.count == 4)
            for id in ids { #expect(!page.body.contains(id), "the page shows the session id \(id)") }
            let handles = Self.handles(page.body)
            #expect(Set(handles) == Set(ids.map(SessionHandle.of)))

            // Signing out the phone ends its session alone.
            var devices: [String: String] = [:]
            for id in ids { devices[try await Self.deviceOf(id, server)] = id }
            let phoneID = try #require(devices["android"])
            let signedOut = try await laptop.post("/settings/sessions/\(SessionHandle.of(phoneID))/sign-out")
            #expect(signedOut.status == 303 && signedOut.location == "/settings/account?done=signed-out")
            #expect(try await phone.get("/c").location?.hasPrefix("/login") == true)
            #expect(try await laptop.get("/c").status == 200)
            // Again, or a handle that is no session's: 404.
            #expect(try await laptop.post("/settings/sessions/\(SessionHandle.of(phoneID))/sign-out").status == 404)
            #expect(
                try await laptop.post("/settings/sessions/\(String(repeating: "0", count: 32))/sign-out").status == 404)
            #expect(try await laptop.post("/settings/sessions/%00%27%3Cscript%3E/sign-out").status == 404)
            // Without its CSRF token: refused, nothing signed out.
            let remaining = Self.handles(try await laptop.get("/settings/account").body)
            #expect(remaining.count == 3)
            #expect(try await laptop.post("/settings/sessions/\(remaining[1])/sign-out", csrf: false).status == 403)
            #expect(Self.handles(try await laptop.get("/settings/account").body).count == 3)

            // This device's own row signs this browser out.
            let mine = try #require(devices["firefox"])
            let out = try await laptop.post("/settings/sessions/\(SessionHandle.of(mine))/sign-out")
            #expect(out.status == 303 && out.location == "/login")
            #expect(laptop.cookies["parley_session"] == nil)
        }
    }

    /// Which test device a session began on, by its stored `User-Agent`.
    static func deviceOf(_ id: String, _ server: TestServer) async throws -> String {
        let agent = try await server.database().pool.read { db in
            try String.fetchOne(db, sql: "SELECT user_agent FROM sessions WHERE id = ?", arguments: [id])
        }
        return agent?.contains("Android") == true ? "android" : agent?.contains("Firefox") == true ? "firefox" : "other"
    }

    @Test("another user's session handle gets 404, and their session stays valid")
    func othersSessions() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var (alice, aliceAPI) = try await server.signUp("alice@example.com")
            var (bob, _) = try await server.signUp("bob@example.com")
            let aliceHandles = Self.handles(try await alice.get("/settings/account").body)
            #expect(aliceHandles.count == 2)
            for handle in aliceHandles {
                #expect(try await bob.post("/settings/sessions/\(handle)/sign-out").status == 404)
            }
            #expect(try await alice.get("/c").status == 200)
            #expect(try await aliceAPI.request(.GET, "/api/me").status == 200)
            #expect(!(try await bob.get("/settings/account").body.contains(aliceHandles[0])))
        }
    }

    @Test("a session's last use is written at sign-in and again only once it is five minutes old")
    func lastUse() async throws {
        let directory = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try ParleyDatabase(directory: directory)
        let accounts = SQLiteAccountStore(database: database)
        // Frozen: real time passing between the steps (seconds on a loaded machine) must not count.
        let clock = MovableWallClock(frozenAt: Date())
        let authority = await SessionAuthority(
            secret: String(repeating: "s", count: 32), accounts: accounts, lifetime: 86_400, now: { clock.now })
        let user = try await accounts.createUser(email: "a@example.com", passwordHash: "h", isAdmin: false)
        let origin = SessionOrigin(userAgent: "curl/8.5.0", address: "192.0.2.1")
        let (token, sessionID, _) = try await authority.signIn(user, origin: origin)
        func lastUse() async throws -> Date? {
            try await accounts.sessions(userID: user.id, now: clock.now).first { $0.id == sessionID }?.lastUsedAt
        }
        let start = try #require(try await lastUse())
        #expect(try await accounts.sessions(userID: user.id, now: clock.now).first?.origin == origin)
        clock.move(by: 299)
        #expect(await authority.identity(token: token, viaBearer: true) != nil)
        #expect(try await lastUse() == start)
        clock.move(by: 2)
        #expect(await authority.identity(token: token, viaBearer: true) != nil)
        let touched = try #require(try await lastUse())
        #expect(touched.timeIntervalSince(start) > 300)
        clock.move(by: 60)
        #expect(await authority.identity(token: token, viaBearer: true) != nil)
        #expect(try await lastUse() == touched)
        try database.close()
    }

    @Test("device names from User-Agent headers")
    func deviceNames() {
        let cases: [(String?, String)] = [
            (Self.firefox, "Firefox on Linux"),
            (
                "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/131.0.0.0 Mobile Safari/537.36",
                "Chrome on Android"
            ),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36 Edg/131.0",
                "Edge on Windows"
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Version/17.5 Mobile/15E148 Safari/604.1",
                "Safari on iOS"
            ),
            (
                "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Version/17.5 Safari/605.1.15",
                "Safari on macOS"
            ),
            ("curl/8.5.0", "curl"), ("python-requests/2.32", "Python requests"),
            ("Mozilla/5.0 (X11; Linux x86_64)", "A browser on Linux"),
            ("", "Unknown device"), (nil, "Unknown device"), ("<script>", "Unknown device"),
        ]
        for (agent, name) in cases { #expect(DeviceName.describe(agent) == name, "\(agent ?? "nil")") }
        let long = SessionOrigin(userAgent: String(repeating: "a", count: 5000) + "\u{0}\u{1b}", address: "")
        #expect(long.userAgent?.count == SessionOrigin.maxUserAgentLength && long.address == nil)
        #expect(SessionOrigin(userAgent: " \u{7f} ", address: "::1").userAgent == nil)
    }
}
