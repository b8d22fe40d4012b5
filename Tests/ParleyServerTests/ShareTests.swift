import Foundation
import GRDB
import Logging
import ParleyCore
import ParleyStore
import Synchronization
import Testing

@testable import ParleyServer

/// Share links over a live server: the public snapshot page, updates, the owner's list, revocation, expiry,
/// ownership, forking, CSRF and hostile content.
@Suite("Sharing")
struct ShareTests {
    /// Signs up a user (open sign-up) and returns their browser and API client.
    static func user(_ server: TestServer, _ email: String) async throws -> (Browser, APIClient) {
        var browser = server.browser()
        _ = try await browser.signUp(email)
        return (browser, try await APIClient.signIn(server, email: email))
    }

    /// Sends a message and waits until its reply is finished.
    static func exchange(_ api: APIClient, _ conversation: Int64, _ content: String) async throws {
        let stream = try await api.request(
            .POST, "/api/conversations/\(conversation)/messages", json: ["content": content],
            headers: [("Accept", "text/event-stream")])
        guard stream.status == 200, stream.body.contains("event:done") else {
            throw TestFailure("sending answered \(stream.status): \(stream.body.prefix(300))")
        }
    }

    /// Shares a conversation through the dialog's form; returns the new link's token.
    static func share(
        _ browser: inout Browser, _ conversation: Int64, author: String = "anonymous",
        expires: String = "never"
    ) async throws -> String {
        let response = try await browser.post("/c/\(conversation)/share", form: ["author": author, "expires": expires])
        guard response.status == 303, let location = response.location, location.hasPrefix("/shares?created=") else {
            throw TestFailure(
                "sharing answered \(response.status) \(response.location ?? ""): \(response.body.prefix(300))")
        }
        return String(location.dropFirst("/shares?created=".count))
    }

    /// A GET by a new browser, signed out and without cookies.
    static func fetch(_ server: TestServer, _ path: String) async throws -> TestResponse {
        var browser = server.browser()
        return try await browser.get(path)
    }

    /// A form POST without the CSRF token by a new browser, signed out and without cookies.
    static func anonymousPost(_ server: TestServer, _ path: String) async throws -> TestResponse {
        var browser = server.browser()
        return try await browser.post(path, csrf: false)
    }

    /// The ids of the revoke forms on the owner's list, in order.
    static func listedShareIDs(_ page: String) -> [Int64] {
        page.matches(of: /action="\/shares\/(\d+)\/revoke"/).compactMap { Int64($0.output.1) }
    }

    /// Runs raw SQL against the live server's database file.
    static func execute(_ server: TestServer, _ sql: String, _ arguments: StatementArguments = []) async throws {
        let database = try ParleyDatabase(directory: server.dataDirectory)
        try await database.pool.write { db in try db.execute(sql: sql, arguments: arguments) }
    }

    /// Counts rows in the live server's database file.
    static func count(_ server: TestServer, _ sql: String) async throws -> Int {
        let database = try ParleyDatabase(directory: server.dataDirectory)
        return try await database.pool.read { db in try Int.fetchOne(db, sql: sql) ?? -1 }
    }

    @Test("on a server with only the demo model, the owner sees the demo banner and a link's visitors do not")
    func noDemoBannerForVisitors() async throws {
        try await withTestServer(configure: { $0.environment = [:] }) { server in
            var (owner, api) = try await Self.user(server, "owner@example.com")
            let id = try await api.createConversation(model: "parley-demo")
            try await Self.exchange(api, id, "Hello")
            #expect(try await owner.get("/c/\(id)").body.contains("parley-demo</strong> model"))
            let token = try await Self.share(&owner, id)
            var visitor = server.browser()
            let page = try await visitor.get("/s/\(token)")
            #expect(page.status == 200 && page.body.contains("demo model"))  // the reply itself is shown
            #expect(!page.body.contains("No model provider is configured"))
        }
    }

    @Test("anyone with the link reads the rendered snapshot: noindex, no link into the owner's account, views counted")
    func publicSnapshot() async throws {
        try await withTestServer(mockTokens: 20) { server in
            var (owner, api) = try await Self.user(server, "owner@example.com")
            let id = try await api.createConversation()
            try await Self.exchange(api, id, "Explain **bold** words")
            let token = try await Self.share(&owner, id)
            #expect(token.count == 32 && token.allSatisfy(\.isHexDigit))

            var visitor = server.browser()
            let page = try await visitor.get("/s/\(token)")
            #expect(page.status == 200)
            #expect(page.headers.first(name: "x-robots-tag") == "noindex")
            #expect(page.body.contains(#"<meta name="robots" content="noindex">"#))
            #expect(page.body.contains("<strong>bold</strong>"))
            #expect(page.body.contains("<strong>mock</strong>"))
            #expect(page.body.contains(#"class="message user""#) && page.body.contains(#"class="message assistant""#))
            #expect(page.body.contains("Shared anonymously"))
            #expect(!page.body.contains("/c/"))
            #expect(!page.body.contains("owner@example.com") && !page.body.contains(">owner<"))
            #expect(!page.body.contains(" in · "))
            #expect(page.body.contains(#"action="/s/\#(token)/fork""#))
            _ = try await visitor.get("/s/\(token)")
            _ = try await Self.fetch(server, "/s/\(token)")

            let list = try await owner.get("/shares")
            #expect(list.status == 200)
            #expect(list.body.contains(#"<td class="views">3</td>"#))
            #expect(list.body.contains(#"href="/c/\#(id)""#))
            #expect(list.body.contains("never"))
            #expect(!list.body.contains(token))
            let flash = try await owner.get("/shares?created=\(token)")
            #expect(flash.body.contains(#"href="/s/\#(token)""#))
            #expect(try await Self.fetch(server, "/shares").location == "/login?next=/shares")
        }
    }

    @Test("later messages and renames stay out of the snapshot until the owner updates it; the link stays the same")
    func snapshotAndUpdate() async throws {
        try await withTestServer(mockTokens: 5) { server in
            var (owner, api) = try await Self.user(server, "owner@example.com")
            let id = try await api.createConversation()
            try await Self.exchange(api, id, "first question")
            let token = try await Self.share(&owner, id)
            try await Self.exchange(api, id, "second question")
            #expect(try await owner.post("/c/\(id)/rename", form: ["title": "Renamed later"]).status == 303)
            var visitor = server.browser()
            let before = try await visitor.get("/s/\(token)")
            #expect(before.body.contains("first question"))
            #expect(!before.body.contains("second question"))
            #expect(!before.body.contains("Renamed later"))

            let update = try await owner.post(
                "/c/\(id)/share", form: ["author": "name", "expires": "never", "update": "1"])
            #expect(update.status == 303)
            #expect(update.location == "/shares?updated=1")
            let after = try await visitor.get("/s/\(token)")
            #expect(after.status == 200)
            #expect(after.body.contains("first question") && after.body.contains("second question"))
            #expect(after.body.contains("<h1>Renamed later</h1>"))
            #expect(after.body.contains("Shared by owner"))
            #expect(Self.listedShareIDs(try await owner.get("/shares").body).count == 1)

            let json = try await api.request(.POST, "/c/\(id)/share", headers: [("Accept", "application/json")])
            #expect(json.status == 201)
            let url = try #require(try json.json()["url"] as? String)
            #expect(url.hasPrefix("/s/") && url != "/s/\(token)")
            #expect(try json.json()["expires_at"] == nil)
            #expect(try await visitor.get(url).body.contains("second question"))
            let updated = try await owner.post(
                "/c/\(id)/share", form: ["update": "1", "expires": "7"],
                headers: [("Accept", "application/json")])
            #expect(updated.status == 200)
            #expect(try updated.json()["updated"] as? Int == 2)
        }
    }

    @Test("show my name shows the name part of the email, never the address; anonymous shows neither")
    func authorChoice() async throws {
        try await withTestServer(mockTokens: 3) { server in
            var (owner, api) = try await Self.user(server, "ada.lovelace@example.com")
            let id = try await api.createConversation()
            try await Self.exchange(api, id, "hello")
            let named = try await Self.share(&owner, id, author: "name")
            let anonymous = try await Self.share(&owner, id, author: "anonymous")
            var visitor = server.browser()
            let namedPage = try await visitor.get("/s/\(named)")
            #expect(namedPage.body.contains("Shared by ada.lovelace"))
            #expect(!namedPage.body.contains("@example.com"))
            let anonymousPage = try await visitor.get("/s/\(anonymous)")
            #expect(anonymousPage.body.contains("Shared anonymously"))
            #expect(!anonymousPage.body.contains("ada.lovelace"))
            for (author, expires) in [("someone", "never"), ("name", "3"), ("name", "")] {
                let refused = try await owner.post("/c/\(id)/share", form: ["author": author, "expires": expires])
                #expect(refused.status == 422, "\(author) \(expires)")
            }
            #expect(Self.listedShareIDs(try await owner.get("/shares").body).count == 2)
        }
    }

    @Test("a revoked, expired or made-up link answers 404; the owner revokes from the list or by the link")
    func revokeAndExpiry() async throws {
        try await withTestServer(mockTokens: 3) { server in
            var (owner, api) = try await Self.user(server, "owner@example.com")
            let id = try await api.createConversation()
            try await Self.exchange(api, id, "hello")
            let byToken = try await Self.share(&owner, id)
            let fromList = try await Self.share(&owner, id)
            let expiring = try await Self.share(&owner, id, expires: "1")
            var visitor = server.browser()
            for token in [byToken, fromList, expiring] { #expect(try await visitor.get("/s/\(token)").status == 200) }

            let revoked = try await owner.post("/s/\(byToken)/revoke")
            #expect(revoked.status == 303)
            #expect(revoked.location == "/shares")
            #expect(try await visitor.get("/s/\(byToken)").status == 404)
            #expect(try await owner.post("/s/\(byToken)/revoke").status == 404)

            let listed = Self.listedShareIDs(try await owner.get("/shares").body)
            #expect(listed.count == 2)
            let newest = try #require(listed.first)
            #expect(try await owner.post("/shares/\(newest)/revoke").status == 303)
            #expect(try await visitor.get("/s/\(expiring)").status == 404)
            #expect(try await visitor.get("/s/\(fromList)").status == 200)
            #expect(Self.listedShareIDs(try await owner.get("/shares").body).count == 1)

            let expired = try await Self.share(&owner, id, expires: "1")
            let list = try await owner.get("/shares")
            #expect(list.body.contains(#"<time datetime=""#) && !list.body.contains(">expired<"))
            try await Self.execute(
                server, "UPDATE shares SET expires_at = ? WHERE expires_at IS NOT NULL",
                [Date().addingTimeInterval(-1)])
            #expect(try await visitor.get("/s/\(expired)").status == 404)
            #expect(try await visitor.post("/s/\(expired)/fork").status == 303)
            #expect(try await owner.post("/s/\(expired)/fork").status == 404)
            #expect(try await owner.get("/shares").body.contains(#"<span class="status">expired</span>"#))
            let refreshed = try await owner.post("/c/\(id)/share", form: ["update": "1"])
            #expect(refreshed.location == "/shares?updated=1")
            #expect(try await visitor.get("/s/\(expired)").status == 404)

            for madeUp in [
                String(repeating: "0", count: 32), "abc", String(fromList.reversed()), fromList.uppercased(),
                fromList + "0",
            ] {
                #expect(try await visitor.get("/s/\(madeUp)").status == 404, "\(madeUp)")
            }
        }
    }

    @Test("another user cannot share, update, revoke or see my links: 404, and nothing changes")
    func ownership() async throws {
        try await withTestServer(mockTokens: 3, configure: { $0.signup = .open }) { server in
            var (owner, api) = try await Self.user(server, "owner@example.com")
            let id = try await api.createConversation()
            try await Self.exchange(api, id, "private words")
            let token = try await Self.share(&owner, id)
            let shareID = try #require(Self.listedShareIDs(try await owner.get("/shares").body).first)
            var (intruder, intruderAPI) = try await Self.user(server, "intruder@example.com")

            #expect(try await intruder.post("/c/\(id)/share", form: ["author": "name"]).status == 404)
            #expect(try await intruder.post("/c/\(id)/share", form: ["update": "1"]).status == 404)
            #expect(
                try await intruderAPI.request(.POST, "/c/\(id)/share", headers: [("Accept", "application/json")]).status
                    == 404)
            #expect(try await intruder.post("/s/\(token)/revoke").status == 404)
            #expect(try await intruder.post("/shares/\(shareID)/revoke").status == 404)
            #expect(try await intruderAPI.request(.POST, "/s/\(token)/revoke").status == 404)
            #expect(try await intruder.post("/c/999999/share").status == 404)
            let intruderList = try await intruder.get("/shares")
            #expect(intruderList.status == 200)
            #expect(Self.listedShareIDs(intruderList.body).isEmpty)
            #expect(!intruderList.body.contains("private words"))

            #expect(try await Self.count(server, "SELECT COUNT(*) FROM shares") == 1)
            #expect(try await Self.count(server, "SELECT views FROM shares") == 0)
            #expect(try await Self.count(server, "SELECT COUNT(*) FROM share_messages") == 2)
            let page = try await Self.fetch(server, "/s/\(token)")
            #expect(page.status == 200)
            #expect(page.body.contains("private words"))
            #expect(page.body.contains("Shared anonymously"))
        }
    }

    @Test("a signed-in visitor continues the conversation as their own copy")
    func forkSignedIn() async throws {
        try await withTestServer(mockTokens: 3, configure: { $0.signup = .open }) { server in
            var (owner, api) = try await Self.user(server, "owner@example.com")
            let id = try await api.createConversation()
            try await Self.exchange(api, id, "where to start?")
            let token = try await Self.share(&owner, id)
            var (visitor, visitorAPI) = try await Self.user(server, "visitor@example.com")
            _ = try await visitor.get("/s/\(token)")
            let forked = try await visitor.post("/s/\(token)/fork")
            #expect(forked.status == 303)
            let location = try #require(forked.location)
            let copy = try #require(Int64(location.replacingOccurrences(of: "/c/", with: "")))
            #expect(copy != id)
            let page = try await visitor.get(location)
            #expect(page.status == 200)
            #expect(page.body.contains("where to start?"))
            let messages = try await visitorAPI.messages(copy)
            #expect(messages.map { $0["role"] as? String } == ["user", "assistant"])
            #expect(messages.first?["content"] as? String == "where to start?")
            #expect(try await owner.get(location).status == 404)
            #expect(try await api.messages(id).count == 2)

            let regenerated = try await visitor.post(
                "\(location)/regenerate", headers: [("Accept", "application/json")])
            #expect(regenerated.status == 202)
            let reply = try #require(try regenerated.json()["assistant_message_id"] as? Int)
            _ = try await visitorAPI.events(copy, lastEventID: "\(reply)0000000").untilDone()
            try await Self.exchange(visitorAPI, copy, "and then?")
            #expect(try await visitorAPI.messages(copy).count == 4)
            #expect(try await api.messages(id).count == 2)
            #expect(Self.listedShareIDs(try await visitor.get("/shares").body).isEmpty)
        }
    }

    @Test("a signed-out visitor is sent to sign in and comes back to the link; only local paths are followed")
    func forkSignedOut() async throws {
        try await withTestServer(mockTokens: 3, configure: { $0.signup = .open }) { server in
            var (owner, api) = try await Self.user(server, "owner@example.com")
            let id = try await api.createConversation()
            try await Self.exchange(api, id, "hello")
            let token = try await Self.share(&owner, id)
            _ = try await Self.user(server, "visitor@example.com")

            var visitor = server.browser()
            let page = try await visitor.get("/s/\(token)")
            #expect(page.body.contains("asked to sign in"))
            let redirect = try await visitor.post("/s/\(token)/fork")
            #expect(redirect.status == 303)
            #expect(redirect.location == "/login?next=/s/\(token)")
            let login = try await visitor.get("/login?next=/s/\(token)")
            #expect(login.body.contains(#"<input type="hidden" name="next" value="/s/\#(token)">"#))
            let signedIn = try await visitor.post(
                "/login",
                form: [
                    "email": "visitor@example.com", "password": "correct horse battery",
                    "next": "/s/\(token)",
                ])
            #expect(signedIn.status == 303)
            #expect(signedIn.location == "/s/\(token)")
            #expect(try await visitor.get("/login?next=/shares").location == "/shares")
            let forked = try await visitor.post("/s/\(token)/fork")
            #expect(forked.status == 303)
            #expect(forked.location?.hasPrefix("/c/") == true)

            for hostile in [
                "//evil.example/x", "https://evil.example/", "/\\evil.example", "javascript:alert(1)", "/ok\r\nX: y",
            ] {
                var other = server.browser()
                _ = try await other.get("/login")
                let response = try await other.post(
                    "/login",
                    form: [
                        "email": "visitor@example.com",
                        "password": "correct horse battery", "next": hostile,
                    ])
                #expect(response.status == 303, "\(hostile)")
                #expect(response.location == "/c", "\(hostile)")
                let form = try await other.get(
                    "/login?next=\(hostile.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
                #expect(form.location == "/c", "\(hostile)")
            }
            var wrong = server.browser()
            _ = try await wrong.get("/login")
            let failed = try await wrong.post(
                "/login", form: ["email": "visitor@example.com", "password": "wrong", "next": "/s/\(token)"])
            #expect(failed.status == 401)
            #expect(failed.body.contains(#"name="next" value="/s/\#(token)""#))
            var script = server.browser()
            _ = try await script.get("/s/\(token)")
            #expect(try await script.post("/s/\(token)/fork", headers: [("Accept", "application/json")]).status == 401)
        }
    }

    @Test("deleting a conversation revokes its links at once")
    func deletionRevokes() async throws {
        try await withTestServer(mockTokens: 3) { server in
            var (owner, api) = try await Self.user(server, "owner@example.com")
            let id = try await api.createConversation()
            try await Self.exchange(api, id, "soon gone")
            let kept = try await api.createConversation()
            try await Self.exchange(api, kept, "stays")
            let first = try await Self.share(&owner, id)
            let second = try await Self.share(&owner, id, expires: "30")
            let other = try await Self.share(&owner, kept)
            #expect(try await owner.post("/c/\(id)/delete").status == 303)
            var visitor = server.browser()
            #expect(try await visitor.get("/s/\(first)").status == 404)
            #expect(try await visitor.get("/s/\(second)").status == 404)
            #expect(try await visitor.get("/s/\(other)").status == 200)
            #expect(Self.listedShareIDs(try await owner.get("/shares").body).count == 1)
            #expect(try await Self.count(server, "SELECT COUNT(*) FROM share_messages") == 2)
        }
    }

    @Test("hostile message and title text is inert on the share page")
    func hostileContent() async throws {
        try await withTestServer(mockTokens: 3) { server in
            var (owner, api) = try await Self.user(server, "owner@example.com")
            let id = try await api.createConversation()
            try await Self.exchange(
                api, id, "<script>alert(1)</script> <img src=x onerror=alert(2)> [x](javascript:alert(3))")
            #expect(
                try await owner.post(
                    "/c/\(id)/rename", form: ["title": "<script>alert('t')</script><img src=x onerror=alert(4)>"]
                ).status == 303)
            let token = try await Self.share(&owner, id)
            let page = try await Self.fetch(server, "/s/\(token)")
            #expect(page.status == 200)
            #expect(!page.body.contains("<script>alert"))
            #expect(!page.body.contains("<img"))
            #expect(page.body.contains("raw HTML omitted"))
            #expect(!page.body.contains("javascript:alert"))
            #expect(page.body.contains("<h1>&lt;script&gt;alert("))
            #expect(page.headers.first(name: "content-security-policy")?.contains("script-src 'self'") == true)
            let list = try await owner.get("/shares")
            #expect(!list.body.contains("<script>alert") && list.body.contains("&lt;script&gt;alert("))
        }
    }

    @Test("share, update, revoke and fork without the CSRF token are 403 and change nothing")
    func csrf() async throws {
        try await withTestServer(mockTokens: 3, configure: { $0.signup = .open }) { server in
            var (owner, api) = try await Self.user(server, "owner@example.com")
            let id = try await api.createConversation()
            try await Self.exchange(api, id, "hello")
            let token = try await Self.share(&owner, id)
            let shareID = try #require(Self.listedShareIDs(try await owner.get("/shares").body).first)
            var (visitor, _) = try await Self.user(server, "visitor@example.com")
            #expect(try await owner.post("/c/\(id)/share", form: ["author": "name"], csrf: false).status == 403)
            #expect(
                try await owner.post("/c/\(id)/share", form: ["update": "1", "csrf_token": "forged"], csrf: false)
                    .status == 403)
            #expect(try await owner.post("/s/\(token)/revoke", csrf: false).status == 403)
            #expect(try await owner.post("/shares/\(shareID)/revoke", csrf: false).status == 403)
            #expect(try await visitor.post("/s/\(token)/fork", csrf: false).status == 403)
            #expect(try await Self.anonymousPost(server, "/s/\(token)/fork").status == 403)

            #expect(try await Self.count(server, "SELECT COUNT(*) FROM shares") == 1)
            #expect(try await Self.count(server, "SELECT COUNT(*) FROM conversations") == 1)
            let page = try await Self.fetch(server, "/s/\(token)")
            #expect(page.status == 200)
            #expect(page.body.contains("Shared anonymously"))
        }
    }

    @Test("a reply still being written is left out of the snapshot; an update takes it once it has ended")
    func streamingReplyIsNotShared() async throws {
        try await withTestServer(mockTokens: 200) { server in
            var (owner, api) = try await Self.user(server, "owner@example.com")
            let id = try await api.createConversation(model: "mock-slow")
            let sent = try await api.send(id, "take your time")
            #expect(sent.status == 202)
            let token = try await Self.share(&owner, id)
            var visitor = server.browser()
            let page = try await visitor.get("/s/\(token)")
            #expect(page.body.contains("take your time"))
            #expect(!page.body.contains(#"class="message assistant""#))
            #expect(!page.body.contains("streaming"))

            let reply = try #require(try sent.json()["assistant_message_id"] as? Int)
            let events = try await api.events(id, lastEventID: "\(reply)0000000")
            _ = try await events.untilTokens(1)
            #expect(try await api.request(.POST, "/api/conversations/\(id)/stop").status == 204)
            _ = try await events.untilDone()
            #expect(try await owner.post("/c/\(id)/share", form: ["update": "1"]).location == "/shares?updated=1")
            let updated = try await visitor.get("/s/\(token)")
            #expect(updated.body.contains(#"class="message assistant""#))
            #expect(updated.body.contains(#"data-status="stopped""#))
        }
    }
}

/// The rules of `ShareService` over real SQLite stores, with a clock the test moves.
@Suite("Sharing rules")
struct ShareServiceTests {
    /// A clock that tests move forward.
    final class TestClock: Sendable {
        private let current = Mutex(Date())
        /// The current time.
        var now: Date { current.withLock { $0 } }
        /// Moves the clock forward.
        func advance(_ interval: TimeInterval) { current.withLock { $0 += interval } }
    }

    @Test("a link works until its expiry by the service's clock; updates restart it; tokens are stored only as digests")
    func expiryByClock() async throws {
        let directory = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try ParleyDatabase(directory: directory)
        let accounts = SQLiteAccountStore(database: database)
        let chats = SQLiteChatStore(database: database)
        let clock = TestClock()
        let service = ShareService(
            store: SQLiteShareStore(database: database), chats: chats,
            catalog: ModelCatalog(models: [], providers: [:], isDemoOnly: false),
            tokens: DigestShareTokens(), logger: Logger(label: "test"), now: { clock.now })
        let owner = try await accounts.createUser(email: "owner@example.com", passwordHash: "x", isAdmin: false)
        let conversation = try await chats.createConversation(
            userID: owner.id, title: "Chat", model: "m", systemPrompt: "")
        _ = try await chats.beginExchange(
            conversationID: conversation.id, userContent: "question", requestID: nil, model: "m")

        let publication = try await service.publish(
            conversationID: conversation.id, user: owner,
            options: ShareOptions(author: .name, expiry: .day), update: false)
        guard case .created(let share, let token) = publication else {
            throw TestFailure("expected a new link: \(publication)")
        }
        #expect(share.authorName == "owner")
        let shared = try await service.view(token: token)
        #expect(shared.messages.map(\.content) == ["question"])
        #expect(
            try await database.pool.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM shares WHERE token_hash = ?", arguments: [token])
            } == 0)

        clock.advance(23 * 3600)
        #expect(try await service.view(token: token).share.id == share.id)
        clock.advance(2 * 3600)
        await #expect(throws: ShareError.notFound) { try await service.view(token: token) }
        await #expect(throws: ShareError.notFound) { try await service.fork(token: token, userID: owner.id) }
        #expect(try await service.ownedShare(token: token, userID: owner.id).id == share.id)
        let renewed = try await service.publish(
            conversationID: conversation.id, user: owner, options: ShareOptions(), update: true)
        guard case .created = renewed else { throw TestFailure("an expired link was updated: \(renewed)") }
        try await service.revoke(token: token, userID: owner.id)
        await #expect(throws: ShareError.notFound) { try await service.ownedShare(token: token, userID: owner.id) }
    }
}
