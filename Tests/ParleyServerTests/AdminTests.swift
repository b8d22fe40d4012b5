import Foundation
import GRDB
import NIOHTTP1
import ParleyCore
import Testing

@testable import ParleyServer

/// The admin pages: who may use them, the cost figures against what was charged, price versions, account
/// management, and hostile input.
@Suite("Admin")
struct AdminTests {
    /// Every admin route, with an id where the path has one.
    static let routes: [(HTTPMethod, String)] = [
        (.GET, "/admin"), (.GET, "/admin/usage.csv"), (.GET, "/admin/users"), (.POST, "/admin/users"),
        (.POST, "/admin/budget"),
        (.GET, "/admin/users/1"), (.POST, "/admin/users/1/disabled"), (.POST, "/admin/users/1/admin"),
        (.POST, "/admin/users/1/password"), (.POST, "/admin/users/1/budget"), (.POST, "/admin/users/1/storage"),
        (.GET, "/admin/models"), (.POST, "/admin/models"), (.GET, "/admin/tools"), (.POST, "/admin/tools"),
        (.GET, "/admin/groups"), (.POST, "/admin/groups"), (.GET, "/admin/groups/1"),
        (.POST, "/admin/groups/1/members"), (.POST, "/admin/groups/1/members/remove"),
        (.POST, "/admin/groups/1/models"), (.POST, "/admin/groups/1/budget"), (.POST, "/admin/groups/1/delete"),
        (.GET, "/admin/keys"), (.POST, "/admin/keys/1/revoke"),
        (.POST, "/admin/users/1/delete"), (.POST, "/admin/invites"), (.POST, "/admin/invites/1/revoke"),
    ]

    @Test(
        "every admin route is 403 for a signed-in user who is not an admin, sends an anonymous visitor to sign in, and needs CSRF"
    )
    func access() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var admin = server.browser()
            _ = try await admin.signUp("admin@example.com")
            #expect(try await admin.post("/admin/groups", form: ["name": "team"]).location == "/admin/groups/1")
            var user = server.browser()
            _ = try await user.signUp("user@example.com")
            let userAPI = try await APIClient.signIn(server, email: "user@example.com")
            var anonymous = server.browser()
            #expect(
                Set(server.routes.filter { $0.contains(" /admin") })
                    == Set(
                        Self.routes.map {
                            "\($0.0.rawValue) \($0.1.replacingOccurrences(of: "/1", with: "/{id}"))"
                        }))
            for (method, path) in Self.routes {
                if method == .GET {
                    let refused = try await anonymous.get(path)
                    #expect(
                        refused.status == 303 && refused.location == LocalRedirect.login(returningTo: path),
                        "anonymous GET \(path): \(refused.status)")
                    #expect(try await user.get(path).status == 403, "GET \(path)")
                    #expect(try await userAPI.request(.GET, path).status == 403, "API GET \(path)")
                    #expect(try await admin.get(path).status == 200, "admin GET \(path)")
                } else {
                    #expect(try await anonymous.post(path).status == 401, "anonymous POST \(path)")
                    #expect(try await user.post(path).status == 403, "POST \(path)")
                    #expect(try await userAPI.request(.POST, path, json: [:]).status == 403, "API POST \(path)")
                    #expect(
                        try await admin.post(path, csrf: false).status == 403, "admin POST \(path) without a CSRF token"
                    )
                }
            }
            let refusal = try await userAPI.request(.GET, "/admin", headers: [("Accept", "application/json")])
            #expect((try refusal.json()["error"] as? [String: Any])?["code"] as? String == "forbidden")
            #expect(try await admin.get("/c").body.contains(#"href="/admin""#))
            #expect(try await user.get("/c").body.contains(#"href="/admin""#) == false)
        }
    }

    @Test(
        "with complete, failed and stopped replies, the messages' costs, the done events, the rollup and the CSV agree to the micro-dollar"
    )
    func consistency() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var admin = server.browser()
            _ = try await admin.signUp("admin@example.com")
            try await admin.setPrice("mock-fast", input: "3", cachedInput: "0.3", output: "15")
            try await admin.setPrice("mock-500", input: "1.25", output: "10")
            try await admin.setPrice("mock-slow", input: "0.15", output: "0.6")
            var user = server.browser()
            _ = try await user.signUp("user@example.com")
            let api = try await APIClient.signIn(server, email: "user@example.com")
            let adminAPI = try await APIClient.signIn(server, email: "admin@example.com")
            var reported: [Int64] = []

            let fast = try await api.createConversation(model: "mock-fast")
            for index in 0..<3 {
                reported.append(try await api.reply(fast, "question \(index) with some words").costMicros)
            }
            let adminFast = try await adminAPI.createConversation(model: "mock-fast")
            reported.append(try await adminAPI.reply(adminFast, "the admin asks too").costMicros)
            let failing = try await api.createConversation(model: "mock-500")
            let failed = try await api.reply(failing, "this one fails upstream")
            #expect(failed.json["status"] as? String == "error")
            reported.append(failed.costMicros)

            let slow = try await api.createConversation(model: "mock-slow")
            let sent = try await api.send(slow, "this one is stopped")
            let replyID = try #require(try sent.json()["assistant_message_id"] as? Int)
            let stream = try await api.events(slow, lastEventID: "\(replyID)0000000")
            _ = try await stream.untilTokens(3)
            #expect(try await api.request(.POST, "/api/conversations/\(slow)/stop").status == 204)
            let stopped = try #require(try await stream.untilDone().done)
            #expect(stopped.json["status"] as? String == "stopped")
            reported.append(stopped.costMicros)

            let database = try server.database()
            let charged = try await database.integer("SELECT COUNT(*) FROM messages WHERE price_version_id IS NOT NULL")
            let messages = try await database.integer(
                "SELECT SUM(cost_micros) FROM messages WHERE price_version_id IS NOT NULL")
            let rollup = try await database.integer("SELECT SUM(cost_micros) FROM usage_daily")
            let requests = try await database.integer("SELECT SUM(requests) FROM usage_daily")
            let estimated = try await database.integer(
                "SELECT COUNT(*) FROM messages WHERE usage_estimated AND role = 'assistant'")
            #expect(charged == 6 && requests == 6)
            // The stopped reply's usage is estimated; the failed one, with no output and no report, is billed nothing.
            #expect(estimated == 1)
            #expect(failed.costMicros == 0)
            #expect(reported.filter { $0 > 0 }.count == reported.count - 1)
            #expect(messages == reported.reduce(0, +))
            #expect(rollup == messages)
            let csv = try await admin.get("/admin/usage.csv?days=7")
            #expect(csv.headers.first(name: "content-type")?.hasPrefix("text/csv") == true)
            #expect(csv.headers.first(name: "content-disposition")?.contains("attachment") == true)
            #expect(
                csv.body.hasPrefix(
                    "day,user_id,email,model,source,messages,input_tokens,cached_input_tokens,output_tokens,cost_usd,"
                        + "estimated_tokens,estimated_cost_usd,title_tokens,title_cost_usd\r\n"))
            #expect(csvTotal(csv.body) == messages)
            // The stopped reply's usage was estimated (the mock reports usage only at a reply's end): the CSV and the
            // dashboard say so.
            #expect(csvTotal(csv.body, column: "estimated_cost_usd") == stopped.costMicros)
            let dashboard = try await admin.get("/admin?days=7")
            #expect(dashboard.body.contains(MicroDollars.display(messages)))
            #expect(
                dashboard.body.contains("Estimated (no usage reported)</dt><dd>")
                    && dashboard.body.contains(MicroDollars.display(stopped.costMicros)))
        }
    }

    @Test("a new price applies to later replies only; an earlier reply keeps the version it was charged at")
    func priceEdit() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var admin = server.browser()
            _ = try await admin.signUp("admin@example.com")
            try await admin.setPrice("mock-fast", input: "0", output: "10")
            let api = try await APIClient.signIn(server, email: "admin@example.com")
            let conversation = try await api.createConversation(model: "mock-fast")
            #expect(try await api.reply(conversation, "first").costMicros == 300)  // 30 tokens at $10 per million
            try await admin.setPrice("mock-fast", input: "0", output: "20.5")
            #expect(try await api.reply(conversation, "second").costMicros == 615)

            let database = try server.database()
            let rows = try await database.pool.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT m.cost_micros, p.output FROM messages m JOIN model_prices p ON p.id = m.price_version_id ORDER BY m.id
                        """
                ).map { [$0["cost_micros"], $0["output"]] as [Int64] }
            }
            #expect(rows == [[300, 10_000_000], [615, 20_500_000]])
            #expect(try await database.integer("SELECT SUM(cost_micros) FROM usage_daily") == 915)
            let page = try await admin.get("/admin/models").body
            #expect(page.contains(#"name="output" value="20.50""#))
            #expect(page.contains("$20.50 out per million tokens") && page.contains("$10.00 out per million tokens"))
            #expect(
                try await admin.post(
                    "/admin/models", form: ["model": "mock-fast", "input": "abc", "cached_input": "0", "output": "1"]
                ).status == 422)
            #expect(
                try await admin.post(
                    "/admin/models", form: ["model": "mock-fast", "input": "-1", "cached_input": "0", "output": "1"]
                ).status == 422)
            #expect(
                try await admin.post(
                    "/admin/models", form: ["model": "no-such-model", "input": "1", "cached_input": "0", "output": "1"]
                ).status == 404)
        }
    }

    @Test("admins create users, reset passwords, promote and disable them, and cannot lock themselves out")
    func userManagement() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var admin = server.browser()
            _ = try await admin.signUp("admin@example.com")
            let created = try await admin.post(
                "/admin/users", form: ["email": "new@example.com", "password": "first password"])
            #expect(created.status == 303)
            let path = try #require(created.location)
            #expect(
                try await admin.post("/admin/users", form: ["email": "NEW@example.com", "password": "first password"])
                    .status == 409)
            #expect(
                try await admin.post("/admin/users", form: ["email": "not an email", "password": "first password"])
                    .status == 422)
            #expect(
                try await admin.post("/admin/users", form: ["email": "short@example.com", "password": "short"]).status
                    == 422)

            var newcomer = server.browser()
            #expect(try await newcomer.signIn("new@example.com", password: "first password").status == 303)
            #expect(try await newcomer.get("/admin").status == 403)
            #expect(try await admin.post(path + "/password", form: ["password": "second password"]).status == 303)
            #expect(try await newcomer.get("/c").location == "/login")
            #expect(try await newcomer.signIn("new@example.com", password: "first password").status == 401)
            #expect(try await newcomer.signIn("new@example.com", password: "second password").status == 303)
            #expect(try await admin.post(path + "/admin", form: ["admin": "1"]).status == 303)
            #expect(try await newcomer.get("/admin").status == 200)
            #expect(try await admin.post(path + "/disabled", form: ["disabled": "1"]).status == 303)
            #expect(try await newcomer.get("/c").location == "/login")
            #expect(try await newcomer.signIn("new@example.com", password: "second password").status == 401)
            let page = try await admin.get(path).body
            #expect(page.contains("Enable account") && page.contains("Remove admin rights"))

            let me = try await server.database().userID("admin@example.com")
            #expect(try await admin.post("/admin/users/\(me)/disabled", form: ["disabled": "1"]).status == 422)
            #expect(try await admin.post("/admin/users/\(me)/admin", form: ["admin": "0"]).status == 422)
            #expect(try await admin.get("/admin").status == 200)
            let list = try await admin.get("/admin/users").body
            #expect(list.contains("new@example.com") && list.contains("admin@example.com"))
        }
    }

    @Test(
        "the dashboard draws a labelled chart with a table of its figures and sortable tables, all without JavaScript")
    func dashboardPage() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var admin = server.browser()
            _ = try await admin.signUp("admin@example.com")
            try await admin.setPrice("mock-fast", input: "1", output: "2")
            var user = server.browser()
            _ = try await user.signUp("user@example.com")
            let api = try await APIClient.signIn(server, email: "user@example.com")
            let conversation = try await api.createConversation(model: "mock-fast")
            _ = try await api.reply(conversation, "Costly question about pelicans")
            _ = try await api.reply(conversation, "and another")

            let page = try await admin.get("/admin").body
            for part in [
                "<svg", #"role="img""#, #"aria-label="\#(DayText.long(.today)): $"#,
                "<title>\(DayText.long(.today)): $",
                "mock-fast: $", "<details>", #"<th scope="row">\#(UsageDay.today)</th>"#,
                #"href="/admin?days=30&amp;sort=requests#users""#,
                #"aria-sort="descending"><a href="/admin?days=30&amp;sort=cost#users""#, "user@example.com",
                "Active users",
                #"href="/admin/usage.csv?days=30""#,
            ] {
                #expect(page.contains(part), "\(part)")
            }
            #expect(!page.contains("<script>"))
            #expect(
                try await admin.get("/admin?sort=name&days=7").body.contains(
                    #"aria-sort="ascending"><a href="/admin?days=7&amp;sort=name#users""#))
            let userID = try await server.database().userID("user@example.com")
            let userPage = try await admin.get("/admin/users/\(userID)").body
            #expect(userPage.contains("Costly question about pelicans") && userPage.contains("<svg"))
            let today = UsageDay.today
            let custom = try await admin.get("/admin?from=\(today.adding(days: -3))&to=\(today)").body
            #expect(custom.contains(#"name="from" value="\#(today.adding(days: -3))""#))
        }
    }

    @Test(
        "hostile emails and titles are inert on admin pages, CSV formulas are neutralised, bad parameters give 400 or defaults"
    )
    func hostileInput() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var admin = server.browser()
            _ = try await admin.signUp("admin@example.com")
            try await admin.setPrice("mock-fast", input: "1", output: "2")
            let hostile = ["<script>alert(1)</script>@evil.example", #"=HYPERLINK("http://x","y")@evil.example"#]
            for email in hostile {
                var visitor = server.browser()
                #expect(try await visitor.signUp(email).status == 303)
                let api = try await APIClient.signIn(server, email: email)
                _ = try await api.reply(
                    try await api.createConversation(model: "mock-fast"), "<img src=x onerror=alert(2)> hi")
            }
            let database = try server.database()
            let scriptUser = try await database.userID(hostile[0])
            for path in ["/admin", "/admin/users", "/admin/users/\(scriptUser)", "/admin?sort=name"] {
                let body = try await admin.get(path).body
                #expect(!body.contains("<script>alert(1)") && !body.contains("<img src=x"), "\(path)")
                #expect(body.contains("&lt;script&gt;alert(1)&lt;/script&gt;@evil.example"), "\(path)")
            }
            #expect(
                try await admin.get("/admin/users/\(scriptUser)").body.contains("&lt;img src=x onerror=alert(2) hi"))
            let csv = try await admin.get("/admin/usage.csv").body
            #expect(csv.contains(#","'=HYPERLINK(""http://x"",""y"")@evil.example",mock-fast,"#))
            #expect(!csv.contains(",=HYPERLINK") && !csv.contains(#","=HYPERLINK"#))

            let today = UsageDay.today
            for query in [
                "from=2025-13-01", "from=2025-02-30&to=2025-03-01", "from=\(today)&to=\(today.adding(days: -1))",
                "from=2020-01-01&to=2025-01-01", "to=yesterday", "from=%00", "from=2025-1-1",
            ] {
                for path in ["/admin", "/admin/usage.csv", "/admin/users/\(scriptUser)"] {
                    #expect(try await admin.get("\(path)?\(query)").status == 400, "\(path)?\(query)")
                }
            }
            for query in [
                "sort=DROP%20TABLE%20users", "sort=", "days=abc", "days=-5", "days=100000", "sort=name&days=7",
                "from=&to=",
            ] {
                #expect(try await admin.get("/admin?\(query)").status == 200, "\(query)")
                #expect(try await admin.get("/admin/usage.csv?\(query)").status == 200, "\(query)")
            }
            #expect(try await admin.get("/admin/users/abc").status == 404)
            #expect(try await admin.get("/admin/users/999999").status == 404)
            #expect(try await admin.post("/admin/users/999999/budget", form: ["budget": "1"]).status == 404)
            #expect(try await admin.post("/admin/users/999999/disabled", form: ["disabled": "1"]).status == 404)
            #expect(try await admin.post("/admin/users/\(scriptUser)/budget", form: ["budget": "1e9"]).status == 422)
            #expect(try await admin.post("/admin/budget", form: ["budget": "ten dollars"]).status == 422)
        }
    }
}
