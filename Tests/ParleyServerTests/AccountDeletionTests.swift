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
}
