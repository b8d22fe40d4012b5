import Foundation
import GRDB
import ParleyCore
import ParleyStore
import Testing

@testable import ParleyServer

/// Invite links against a live server with sign-up closed: made by an admin and shown once, used once, expired after
/// seven days on the server's clock, bound to an email when made for one, and withdrawn while unused.
@Suite("Invites")
struct InviteTests {
    static let password = "correct horse battery"

    /// Makes an invite through the admin's form; returns its token.
    static func invite(_ admin: inout Browser, email: String = "") async throws -> String {
        let made = try await admin.post("/admin/invites", form: ["email": email])
        try #require(made.status == 201, "making an invite answered \(made.status)")
        return try #require(made.body.firstMatch(of: /\/invite\/([0-9a-f]{32})/).map { String($0.1) })
    }

    /// The admin of a server whose sign-up is closed (made as `parley user create` makes one), signed in.
    static func admin(_ server: TestServer) async throws -> Browser {
        let hash = try await PasswordHasher(cost: 4).hash(password)
        _ = try await SQLiteAccountStore(database: server.database())
            .createUser(email: "admin@example.com", passwordHash: hash, isAdmin: true)
        var browser = server.browser()
        try #require(try await browser.signIn("admin@example.com").status == 303)
        return browser
    }

    /// Counts the accounts.
    static func users(_ server: TestServer) async throws -> Int64 {
        try await server.database().integer("SELECT COUNT(*) FROM users")
    }

    @Test("with sign-up closed, a link makes one account, signed in at once; the link then says it was used (410)")
    func singleUse() async throws {
        try await withTestServer(configure: { $0.signup = .closed }) { server in
            var admin = try await Self.admin(server)
            var closed = server.browser()
            #expect(try await closed.signUp("walk-in@example.com").status == 403)
            let token = try await Self.invite(&admin)
            // Shown once: the list names the invite, never its link.
            let list = try await admin.get("/admin/users").body
            #expect(!list.contains(token) && list.contains("waiting"))
            let stored = try await server.database().pool.read { db in
                try String.fetchAll(db, sql: "SELECT token_hash FROM invites")
            }
            #expect(stored == [DigestShareTokens().digest(token)])

            var guest = server.browser()
            let form = try await guest.get("/invite/\(token)")
            #expect(form.status == 200 && form.body.contains(#"name="password""#))
            InertHTML.expectInert(form, "invite page")
            let made = try await guest.post(
                "/invite/\(token)", form: ["email": "guest@example.com", "password": Self.password])
            #expect(made.status == 303 && made.location == "/c")
            #expect(try await guest.get("/c").status == 200)
            let me = try await APIClient.signIn(server, email: "guest@example.com")
            #expect(try await me.request(.GET, "/api/me").json()["is_admin"] as? Bool == false)
            #expect(try await admin.get("/admin/users").body.contains("used"))

            var late = server.browser()
            let gone = try await late.get("/invite/\(token)")
            #expect(gone.status == 410 && gone.body.contains("This invite link has been used already."))
            let again = try await late.post(
                "/invite/\(token)", form: ["email": "late@example.com", "password": Self.password])
            #expect(again.status == 410)
            #expect(try await Self.users(server) == 2)
            // A used invite can no longer be withdrawn.
            let id = try await server.database().integer("SELECT id FROM invites")
            #expect(try await admin.post("/admin/invites/\(id)/revoke").status == 404)
        }
    }

    @Test("a link expires seven days after it was made, by the server's clock")
    func expiry() async throws {
        let clock = MovableWallClock()
        try await withTestServer(configure: {
            $0.signup = .closed; $0.wallClock = { clock.now }
        }) { server in
            var admin = try await Self.admin(server)
            let token = try await Self.invite(&admin)
            var guest = server.browser()
            clock.move(by: 7 * 86_400 - 60)
            #expect(try await guest.get("/invite/\(token)").status == 200)
            clock.move(by: 61)
            let expired = try await guest.get("/invite/\(token)")
            #expect(expired.status == 410 && expired.body.contains("This invite link has expired"))
            let refused = try await guest.post(
                "/invite/\(token)", form: ["email": "guest@example.com", "password": Self.password])
            #expect(refused.status == 410)
            #expect(try await Self.users(server) == 1)
            // The admin's session is past its seven days too.
            #expect(try await admin.signIn("admin@example.com").status == 303)
            #expect(try await admin.get("/admin/users").body.contains("expired"))
        }
    }

    @Test("an invite for an email makes that account alone; bad input shows the form again and keeps the invite")
    func boundToEmail() async throws {
        try await withTestServer(configure: { $0.signup = .closed }) { server in
            var admin = try await Self.admin(server)
            #expect(try await admin.post("/admin/invites", form: ["email": "not an email"]).status == 422)
            #expect(try await server.database().integer("SELECT COUNT(*) FROM invites") == 0)
            let token = try await Self.invite(&admin, email: "carol@example.com")
            var guest = server.browser()
            let form = try await guest.get("/invite/\(token)").body
            #expect(form.contains(#"value="carol@example.com""#) && form.contains("readonly"))

            let cases: [([String: String], Int, String)] = [
                (
                    ["email": "mallory@example.com", "password": Self.password], 422,
                    "This invite is for carol@example.com"
                ),
                (["email": "carol@example.com", "password": "short"], 422, "at least 8 characters"),
                ([:], 422, "at least 8 characters"),
            ]
            for (fields, status, message) in cases {
                let refused = try await guest.post("/invite/\(token)", form: fields)
                #expect(refused.status == status, "\(fields) answered \(refused.status)")
                #expect(refused.body.contains(message), "\(fields) does not say \(message)")
            }
            #expect(
                try await guest.post(
                    "/invite/\(token)", form: ["email": "carol@example.com", "password": Self.password], csrf: false
                ).status == 403)
            #expect(try await Self.users(server) == 1)
            // An open invite given an email that has an account already: 409, and the invite still works.
            let open = try await Self.invite(&admin)
            let taken = try await guest.post(
                "/invite/\(open)", form: ["email": "ADMIN@example.com", "password": Self.password])
            #expect(taken.status == 409 && taken.body.contains("exists already"))
            #expect(try await guest.get("/invite/\(open)").status == 200)

            // The invited email (the field may be left out) makes the account.
            let made = try await guest.post("/invite/\(token)", form: ["password": Self.password])
            #expect(made.status == 303)
            #expect(try await Self.users(server) == 2)
            #expect(try await server.database().userID("carol@example.com") > 0)
        }
    }

    @Test("unknown, malformed and withdrawn links are 404; only admins make or withdraw invites")
    func withdrawnAndUnknown() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var (admin, _) = try await server.signUp("admin@example.com")
            var (user, _) = try await server.signUp("user@example.com")
            let token = try await Self.invite(&admin)
            let id = try await server.database().integer("SELECT id FROM invites")
            #expect(try await user.post("/admin/invites", form: [:]).status == 403)
            #expect(try await user.post("/admin/invites/\(id)/revoke").status == 403)
            #expect(try await admin.post("/admin/invites/\(id)/revoke", csrf: false).status == 403)
            var visitor = server.browser()
            #expect(try await visitor.get("/invite/\(token)").status == 200)

            #expect(try await admin.post("/admin/invites/\(id)/revoke").location == "/admin/users")
            var guest = server.browser()
            let withdrawn = try await guest.get("/invite/\(token)")
            #expect(withdrawn.status == 404 && withdrawn.body.contains("There is no invite at this link"))
            #expect(
                try await guest.post("/invite/\(token)", form: ["email": "g@example.com", "password": Self.password])
                    .status == 404)
            #expect(try await admin.post("/admin/invites/\(id)/revoke").status == 404)
            #expect(try await admin.post("/admin/invites/999/revoke").status == 404)
            for bad in [String(repeating: "0", count: 32), "short", String(repeating: "A", count: 32), "%27%3Cx%3E"] {
                #expect(try await guest.get("/invite/\(bad)").status == 404, "\(bad)")
            }
            #expect(try await Self.users(server) == 2)
        }
    }
}
