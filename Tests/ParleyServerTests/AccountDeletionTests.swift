import Foundation
import GRDB
import Logging
import ParleyCore
import ParleyStore
import Testing

@testable import ParleyServer

/// Deleting an account: by its owner with the current password, or by an admin through the core API.
@Suite("Account deletion")
struct AccountDeletionTests {
    /// Counts of a user's rows in every table that holds their data, read straight from the server's SQLite file.
    static func rows(of email: String, in directory: String) async throws -> [String: Int] {
        let database = try ParleyDatabase(directory: directory)
        return try await database.pool.read { db in
            let userID = try Int64.fetchOne(db, sql: "SELECT id FROM users WHERE email = ?", arguments: [email]) ?? -1
            var counts: [String: Int] = [:]
            for (name, sql) in [
                ("users", "SELECT COUNT(*) FROM users WHERE id = ?"),
                ("sessions", "SELECT COUNT(*) FROM sessions WHERE user_id = ?"),
                ("conversations", "SELECT COUNT(*) FROM conversations WHERE user_id = ?"),
                (
                    "messages",
                    "SELECT COUNT(*) FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.user_id = ?"
                ),
            ] {
                counts[name] = try Int.fetchOne(db, sql: sql, arguments: [userID])
            }
            return counts
        }
    }

    @Test("a wrong password refuses the deletion and keeps everything")
    func wrongPassword() async throws {
        try await withTestServer(mockTokens: 2) { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let api = try await APIClient.signIn(server, email: "user@example.com")
            try await api.sendAndWait(try await api.createConversation(title: "Mine"), "keep me")
            let refused = try await browser.post("/settings/delete-account", form: ["password": "not my password"])
            #expect(refused.status == 403)
            #expect(refused.body.contains("That is not your password; nothing was deleted."))
            #expect(try await browser.post("/settings/delete-account", form: [:]).status == 403)
            #expect(
                try await browser.post(
                    "/settings/delete-account", form: ["password": "correct horse battery"], csrf: false
                ).status == 403)
            #expect(try await browser.get("/c").status == 200)
            #expect(
                try await Self.rows(of: "user@example.com", in: server.dataDirectory)
                    == ["users": 1, "sessions": 2, "conversations": 1, "messages": 2])
        }
    }

    @Test("the right password deletes the user's data and sessions, stops their replies, and spares other users")
    func rightPassword() async throws {
        try await withTestServer(mockTokens: 200, mockDelayMilliseconds: 20, configure: { $0.signup = .open }) {
            server in
            var (alice, aliceAPI) = try await server.signUp("alice@example.com")
            var (bob, bobAPI) = try await server.signUp("bob@example.com")
            let bobs = try await bobAPI.createConversation(title: "Bob's")
            try await bobAPI.sendAndWait(bobs, "bob's walrus")
            let running = try await aliceAPI.createConversation(title: "Alice's")
            #expect(try await aliceAPI.send(running, "alice's walrus").status == 202)
            try await server.waitForMock { $0.open == 1 }
            let session = try #require(alice.cookies["parley_session"])

            let deleted = try await alice.post("/settings/delete-account", form: ["password": "correct horse battery"])
            #expect(deleted.status == 303)
            #expect(deleted.location == "/login")
            #expect(deleted.headers["set-cookie"].contains { $0.hasPrefix("parley_session=;") })
            #expect(try await server.waitForMock { $0.open == 0 }.aborted == 1)

            var replay = server.browser()
            replay.cookies = ["parley_session": session]
            #expect(try await replay.get("/c").location == "/login")
            #expect(try await aliceAPI.request(.GET, "/api/conversations").status == 401)
            #expect(
                try await Self.rows(of: "alice@example.com", in: server.dataDirectory)
                    == ["users": 0, "sessions": 0, "conversations": 0, "messages": 0])
            #expect(
                try await Self.rows(of: "bob@example.com", in: server.dataDirectory)
                    == ["users": 1, "sessions": 2, "conversations": 1, "messages": 2])
            #expect(try await bob.get("/c").status == 200)
            #expect(SearchTests.resultLinks(try await bob.get(searchPath("walrus")).body).count == 1)
            let login = try await APIClient(server: server).request(
                .POST, "/api/login",
                json: ["email": "alice@example.com", "password": "correct horse battery"])
            #expect(login.status == 401)
        }
    }

    @Test("an admin deletes another user through ChatService: their session ends, their data goes, the admin's stays")
    func adminDeletes() async throws {
        try await withTestServer(mockTokens: 2, configure: { $0.signup = .open }) { server in
            var admin = server.browser()
            _ = try await admin.signUp("admin@example.com")
            var user = server.browser()
            _ = try await user.signUp("user@example.com")
            let userAPI = try await APIClient.signIn(server, email: "user@example.com")
            try await userAPI.sendAndWait(try await userAPI.createConversation(title: "Doomed"), "goodbye")
            let adminAPI = try await APIClient.signIn(server, email: "admin@example.com")
            let kept = try await adminAPI.createConversation(title: "Kept")

            let database = try ParleyDatabase(directory: server.dataDirectory)
            let accounts = SQLiteAccountStore(database: database)
            let store = SQLiteChatStore(database: database)
            let catalog = ModelCatalog(models: [], providers: [:], isDemoOnly: false)
            let logger = Logger(label: "test")
            let chat = ChatService(
                store: store, generations: GenerationManager(store: store, catalog: catalog, logger: logger),
                catalog: catalog, logger: logger)
            let target = try #require(try await accounts.user(email: "user@example.com"))
            try await chat.deleteAccount(userID: target.id, accounts: accounts)

            #expect(try await user.get("/c").location == "/login")
            #expect(try await userAPI.request(.GET, "/api/conversations").status == 401)
            #expect(
                try await Self.rows(of: "user@example.com", in: server.dataDirectory)
                    == ["users": 0, "sessions": 0, "conversations": 0, "messages": 0])
            #expect(ids(try await adminAPI.conversations()) == [kept])
            #expect(try await admin.get("/c").status == 200)
            do {
                try await chat.deleteAccount(userID: target.id, accounts: accounts)
                Issue.record("deleting a deleted user succeeded")
            } catch {
                #expect(error as? ChatError == .notFound)
            }
        }
    }

    @Test(
        "an admin deletes a user from their page once the email is typed: a wrong text, no token or oneself change nothing"
    )
    func adminDeletesFromTheirPage() async throws {
        try await withTestServer(mockTokens: 2, configure: { $0.signup = .open }) { server in
            var (admin, _) = try await server.signUp("admin@example.com")
            var (user, userAPI) = try await server.signUp("user@example.com")
            let doomed = try await userAPI.createConversation()
            try await userAPI.sendAndWait(doomed, "goodbye")
            let shared = try await user.post(
                "/c/\(doomed)/share", form: ["author": "anonymous", "expires": "never"],
                headers: [("Accept", "application/json")])
            let shareURL = try #require(try shared.json()["url"] as? String)
            let database = try server.database()
            let question = try await database.integer(
                "SELECT MIN(id) FROM messages WHERE conversation_id = ?", [doomed])
            let image = try NewImage(fileName: "doomed.png", bytes: try Fixtures.image("gradient.png"))
            let userID = try await database.userID("user@example.com")
            _ = try await SQLiteChatStore(database: database).addAttachments(
                [image], messageID: question, userID: userID)
            let everything = ["users": 1, "sessions": 2, "conversations": 1, "messages": 2]
            func extras() async throws -> [Int64] {
                [
                    try await database.integer("SELECT COUNT(*) FROM shares WHERE user_id = ?", [userID]),
                    try await database.integer("SELECT COUNT(*) FROM attachments"),
                ]
            }
            #expect(try await extras() == [1, 1])

            let path = "/admin/users/\(userID)/delete"
            for typed in ["admin@example.com", "", "user@example.co", "user@example.com\u{0}", "<script>x</script>"] {
                let refused = try await admin.post(path, form: ["confirm_email": typed])
                #expect(refused.status == 400, "\(typed.debugDescription) answered \(refused.status)")
                #expect(
                    refused.body.contains(
                        "Type the user&#39;s email exactly to delete the account; nothing was deleted."))
                InertHTML.expectInert(refused, "refused deletion", status: 400)
            }
            #expect(try await admin.post(path, form: [:]).status == 400)
            #expect(try await admin.post(path, form: ["confirm_email": "user@example.com"], csrf: false).status == 403)
            #expect(try await user.post(path, form: ["confirm_email": "user@example.com"]).status == 403)
            #expect(try await Self.rows(of: "user@example.com", in: server.dataDirectory) == everything)
            #expect(try await extras() == [1, 1])
            #expect(try await user.get("/c").status == 200)

            let adminID = try await database.userID("admin@example.com")
            let own = try await admin.post(
                "/admin/users/\(adminID)/delete", form: ["confirm_email": "admin@example.com"])
            #expect(own.status == 422 && own.body.contains("You cannot delete your own account here"))
            #expect(try await admin.get("/admin").status == 200)
            #expect(
                try await admin.post("/admin/users/999/delete", form: ["confirm_email": "x@example.com"]).status == 404)
            #expect(
                try await admin.post("/admin/users/abc/delete", form: ["confirm_email": "x@example.com"]).status == 404)
            #expect(
                try await admin.get("/admin/users/\(userID)").body.contains("Type <strong>user@example.com</strong>"))
            #expect(!(try await admin.get("/admin/users/\(adminID)").body.contains("/delete")))

            let deleted = try await admin.post(path, form: ["confirm_email": " USER@example.com "])
            #expect(deleted.status == 303 && deleted.location == "/admin/users?deleted=1")
            let list = try await admin.get("/admin/users?deleted=1").body
            #expect(list.contains("The account and its data were deleted.") && !list.contains("user@example.com"))
            #expect(
                try await Self.rows(of: "user@example.com", in: server.dataDirectory)
                    == ["users": 0, "sessions": 0, "conversations": 0, "messages": 0])
            #expect(try await extras() == [0, 0])
            #expect(try await user.get("/c").location?.hasPrefix("/login") == true)
            #expect(try await userAPI.request(.GET, "/api/conversations").status == 401)
            var visitor = server.browser()
            #expect(try await visitor.get(shareURL).status == 404)
            #expect(try await admin.post(path, form: ["confirm_email": "user@example.com"]).status == 404)
        }
    }
}
