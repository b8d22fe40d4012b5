import Foundation
import GRDB
import ParleyStore
import Testing

@testable import ParleyServer

/// Sign-up, sign-in, sessions, tokens and CSRF against a live server.
@Suite("Accounts and sessions")
struct AuthTests {
    @Test("the first account becomes admin; with first-user sign-up a second one is refused")
    func firstUserSignup() async throws {
        try await withTestServer { server in
            var first = server.browser()
            let created = try await first.signUp("admin@example.com")
            #expect(created.status == 303)
            #expect(created.location == "/c")
            let page = try await first.get("/c")
            #expect(page.status == 200)
            #expect(page.body.contains("admin@example.com"))

            var second = server.browser()
            let refused = try await second.signUp("late@example.com")
            #expect(refused.status == 403)
            let login = try await second.signIn("late@example.com")
            #expect(login.status == 401)
        }
    }

    @Test("open sign-up lets a second person in, as a normal user")
    func openSignup() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var first = server.browser()
            _ = try await first.signUp("one@example.com")
            var second = server.browser()
            #expect(try await second.signUp("two@example.com").status == 303)
            var third = server.browser()
            let duplicate = try await third.signUp("TWO@example.com")
            #expect(duplicate.status == 409)
        }
    }

    @Test("bad sign-up input is refused with the form again and creates nothing")
    func badSignup() async throws {
        try await withTestServer { server in
            var browser = server.browser()
            let short = try await browser.signUp("a@example.com", password: "short")
            #expect(short.status == 422)
            #expect(short.body.contains("at least 8"))
            let badEmail = try await browser.signUp("not-an-email", password: "long enough password")
            #expect(badEmail.status == 422)
            #expect(try await browser.signIn("a@example.com", password: "short").status == 401)
            // Nobody was created, so the next sign-up is still the first (admin) one.
            #expect(try await browser.signUp("a@example.com").status == 303)
        }
    }

    @Test("a wrong password or unknown email gets 401 with the form and no hint which was wrong")
    func wrongPassword() async throws {
        try await withTestServer { server in
            var owner = server.browser()
            _ = try await owner.signUp("user@example.com")
            var stranger = server.browser()
            let wrongPassword = try await stranger.signIn("user@example.com", password: "wrong password")
            let unknownEmail = try await stranger.signIn("nobody@example.com", password: "wrong password")
            #expect(wrongPassword.status == 401)
            #expect(unknownEmail.status == 401)
            #expect(wrongPassword.body.contains("<form"))
            #expect(wrongPassword.body.contains("The email or password is not right."))
            #expect(unknownEmail.body.contains("The email or password is not right."))
            #expect(stranger.cookies["parley_session"] == nil)
        }
    }

    @Test(
        "ten failures from one address within five minutes give it 429 with Retry-After, even with the right password")
    func loginThrottle() async throws {
        try await withTestServer { server in
            var owner = server.browser()
            _ = try await owner.signUp("victim@example.com")
            var attacker = server.browser()
            for _ in 0..<10 {
                #expect(try await attacker.signIn("victim@example.com", password: "guess guess").status == 401)
            }
            let blocked = try await attacker.signIn("victim@example.com")
            #expect(blocked.status == 429)
            #expect(Int(blocked.headers.first(name: "retry-after") ?? "") ?? 0 > 0)
            let api = try await APIClient(server: server, token: nil)
                .request(
                    .POST, "/api/login", json: ["email": "victim@example.com", "password": "correct horse battery"])
            #expect(api.status == 429)
        }
    }

    @Test("signing out revokes the session: the old cookie and token no longer work")
    func logoutRevokes() async throws {
        try await withTestServer { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let oldSession = try #require(browser.cookies["parley_session"])
            let api = try await APIClient.signIn(server, email: "user@example.com")
            #expect(try await api.request(.GET, "/api/conversations").status == 200)

            let logout = try await browser.post("/logout")
            #expect(logout.status == 303)
            var replay = server.browser()
            replay.cookies["parley_session"] = oldSession
            let page = try await replay.get("/c")
            #expect(page.status == 303)
            #expect(page.location == "/login")

            var other = server.browser()
            _ = try await other.signIn("user@example.com")
            #expect(try await other.post("/logout/everywhere").status == 303)
            #expect(try await api.request(.GET, "/api/conversations").status == 401)
        }
    }

    @Test(
        "malformed, tampered, alg-none, expired (even once accepted) and wrong-key tokens, and tokens of deleted users, get 401"
    )
    func badTokens() async throws {
        try await withTestServer(configure: { $0.jwtSecret = "test-secret-for-tokens" }) { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let api = try await APIClient.signIn(server, email: "user@example.com")
            let token = try #require(api.token)
            let parts = token.split(separator: ".").map(String.init)
            let header = Data(#"{"alg":"none","typ":"JWT"}"#.utf8).base64URL
            let tampered =
                parts[0] + "." + Data(#"{"sub":"1","sid":"x","exp":9999999999}"#.utf8).base64URL + "." + parts[2]
            for bad in ["garbage", "a.b.c", tampered, header + "." + parts[1] + ".", token + "x"] {
                let response = try await APIClient(server: server, token: bad).request(.GET, "/api/conversations")
                #expect(response.status == 401, "token \(bad.prefix(20))")
                #expect(try response.json()["error"] != nil)
            }
            let expired = try await forgeToken(
                secret: "test-secret-for-tokens", userID: "1", session: "none", expiresIn: -60)
            #expect(
                try await APIClient(server: server, token: expired).request(.GET, "/api/conversations").status == 401)
            let noSession = try await forgeToken(
                secret: "test-secret-for-tokens", userID: "1", session: "forged", expiresIn: 3600)
            #expect(
                try await APIClient(server: server, token: noSession).request(.GET, "/api/conversations").status == 401)
            // The real session, signed with another key.
            var payload = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            payload += String(repeating: "=", count: (4 - payload.count % 4) % 4)
            let payloadData = try #require(Data(base64Encoded: payload))
            let claims = try #require(try JSONSerialization.jsonObject(with: payloadData) as? [String: Any])
            let session = try #require(claims["sid"] as? String)
            let wrongKey = try await forgeToken(
                secret: "another-secret-entirely", userID: "1", session: session, expiresIn: 3600)
            #expect(
                try await APIClient(server: server, token: wrongKey).request(.GET, "/api/conversations").status == 401)
            let rightKey = try await forgeToken(
                secret: "test-secret-for-tokens", userID: "1", session: session, expiresIn: 3600)
            #expect(
                try await APIClient(server: server, token: rightKey).request(.GET, "/api/conversations").status == 200)
            // A token whose signature was checked once is remembered, and still refused once it has expired.
            let shortLived = try await forgeToken(
                secret: "test-secret-for-tokens", userID: "1", session: session, expiresIn: 2)
            let expiry = Date().addingTimeInterval(2)  // no earlier than the token's `exp`
            #expect(
                try await APIClient(server: server, token: shortLived).request(.GET, "/api/conversations").status == 200
            )
            // Real time: the server checks `exp` on its wall clock (`Date()`); waits until that clock has passed it.
            while Date() <= expiry { try await Task.sleep(for: .seconds(max(expiry.timeIntervalSinceNow, 0.001))) }
            #expect(
                try await APIClient(server: server, token: shortLived).request(.GET, "/api/conversations").status == 401
            )
            let missing = try await APIClient(server: server, token: nil).request(.GET, "/api/conversations")
            #expect(missing.status == 401)

            let database = try ParleyDatabase(directory: server.dataDirectory)
            try await database.pool.write { db in try db.execute(sql: "DELETE FROM users") }
            #expect(try await api.request(.GET, "/api/conversations").status == 401)
            let page = try await browser.get("/c")
            #expect(page.status == 303)
        }
    }

    @Test("a POST without or with a wrong CSRF token gets 403 and changes nothing")
    func csrf() async throws {
        try await withTestServer { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let id = try await browser.createConversation()
            let missing = try await browser.post("/c/\(id)/rename", form: ["title": "Hacked"], csrf: false)
            #expect(missing.status == 403)
            let wrong = try await browser.post("/c/\(id)/rename", form: ["title": "Hacked", "csrf_token": "0123"])
            #expect(wrong.status == 403)
            let deleteAttempt = try await browser.post("/c/\(id)/delete", form: ["csrf_token": "wrong"])
            #expect(deleteAttempt.status == 403)
            let page = try await browser.get("/c/\(id)")
            #expect(page.status == 200)
            #expect(!page.body.contains("Hacked"))
            // The page carries the cookie's token masked afresh (never the bare token), which stands for it.
            let embedded = try #require(
                page.body.firstMatch(of: /name="csrf_token" value="([0-9a-f]+)"/).map { String($0.1) })
            #expect(embedded != browser.csrfToken && CSRFTokenMask.matches(embedded, token: browser.csrfToken ?? "-"))
            let header = try await browser.send(
                .POST, "/c/\(id)/rename",
                headers: [
                    ("Content-Type", "application/x-www-form-urlencoded"),
                    ("X-CSRF-Token", browser.csrfToken ?? ""), ("Accept", "application/json"),
                ],
                body: "title=Renamed")
            #expect(header.status == 204)
        }
    }
}

extension Data {
    /// Base64url without padding, as JWTs use.
    var base64URL: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
