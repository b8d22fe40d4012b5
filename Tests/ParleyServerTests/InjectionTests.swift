import Foundation
import Testing

/// Hostile text in every field a user controls, on every page that shows it; hostile query values and redirects.
@Suite("Security: injection")
struct InjectionTests {
    /// Script in a tag, an event handler, an attribute break-out, a textarea break-out and a template tag.
    static let payload = "<script>alert(1)</script>\"'><img src=x onerror=alert(2)></textarea><b>x</b>{{user}}"
    /// How the payload's start reads once escaped for HTML.
    static let escapedStart = "&lt;script&gt;alert(1)&lt;/script&gt;"
    /// An email address that is valid by the sign-up rules and hostile as HTML.
    static let hostileEmail = "<script>alert(1)</script>@evil.example"

    /// Checks that nothing of the payload reached `page` as markup.
    static func expectInert(_ page: TestResponse, _ name: String) {
        #expect(page.status == 200, "\(name) answered \(page.status)")
        for markup in ["<script>alert", "<img src=x", "</textarea><b>x", "<b>x</b>", "href=\"javascript:"] {
            #expect(!page.body.contains(markup), "\(name) shows \(markup) as markup")
        }
    }

    /// Checks that `page` is inert and shows the payload, escaped.
    static func expectShownEscaped(_ page: TestResponse, _ name: String, escaped: String = escapedStart) {
        expectInert(page, name)
        #expect(page.body.contains(escaped), "\(name) does not show the escaped text")
    }

    @Test("a hostile email, title, message, system prompt, image name and search are inert on every page that shows them, shares and admin pages included, and are stored as written")
    func hostileFieldsEverywhere() async throws {
        try await AttachmentTests.withVisionServer { server in
            var admin = server.browser()
            _ = try await admin.signUp("admin@example.com")
            let account = try await server.signUp(Self.hostileEmail)
            var browser = account.browser
            let api = account.api
            let id = try await api.createConversation(model: "mock-vision", systemPrompt: Self.payload)
            let upload = try await browser.postMultipart("/c/\(id)/messages", fields: [("content", Self.payload)],
                                                         files: [(name: Self.payload + ".png", type: "image/png",
                                                                  bytes: try Fixtures.image("gradient.png"))])
            #expect(upload.status == 202, "\(upload.body.prefix(300))")
            let deadline = ContinuousClock.now + .seconds(15)
            while try await api.messages(id).last?["status"] as? String == "streaming", ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await browser.post("/c/\(id)/rename", form: ["title": Self.payload]).status == 303)
            let shared = try await browser.post("/c/\(id)/share", form: ["author": "name", "expires": "never"],
                                                headers: [("Accept", "application/json")])
            let shareURL = try #require(try shared.json()["url"] as? String)
            let sharePath = try #require(URL(string: shareURL)?.path)

            let conversation = try await browser.get("/c/\(id)")
            Self.expectShownEscaped(conversation, "the conversation page")
            #expect(conversation.body.contains("raw HTML omitted"), "the message's HTML is not left out")
            // The file name is cleaned to its last path part; what is left of it is escaped in the image's alt text.
            #expect(conversation.body.contains(/alt="[^"<>]*&gt;/), "the image's name is not its escaped alt text")
            #expect(conversation.body.contains("&lt;/textarea&gt;"), "the system prompt is not in its text box, escaped")
            Self.expectShownEscaped(try await browser.get("/c"), "the conversation list")
            Self.expectShownEscaped(try await browser.get("/shares"), "the share list")
            Self.expectShownEscaped(try await browser.get("/settings"), "the settings page (the email)")
            Self.expectShownEscaped(try await browser.get("/search?q=alert"), "search results", escaped: "&lt;script&gt;")
            let query = Self.payload.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            Self.expectShownEscaped(try await browser.get("/search?q=\(query)"), "the search page with a hostile query")

            var visitor = server.browser()
            let sharePage = try await visitor.get(sharePath)
            Self.expectShownEscaped(sharePage, "the share page")
            #expect(sharePage.body.contains("raw HTML omitted"))

            Self.expectInert(try await admin.get("/admin"), "the admin dashboard")
            Self.expectShownEscaped(try await admin.get("/admin/users"), "the admin user list")
            Self.expectShownEscaped(try await admin.get("/admin/users/2"), "the admin user page")  // the second account
            Self.expectInert(try await admin.get("/admin/models"), "the admin models page")

            // Stored exactly as written.
            let messages = try await api.messages(id)
            #expect(messages.first?["content"] as? String == Self.payload)
            let list = try await api.request(.GET, "/api/conversations")
            #expect((try list.json()["data"] as? [[String: Any]])?.first?["title"] as? String == Self.payload)
        }
    }

    @Test("SQL metacharacters in pagination and ids get 400 or 404, never a 500, and never another user's rows")
    func hostilePagination() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            let other = try await server.signUp("other@example.com").api
            let secret = try await other.createConversation()
            _ = try await other.send(secret, "the other user's secret")
            let api = try await server.signUp("user@example.com").api
            let own = try await api.createConversation()
            var browser = server.browser()
            _ = try await browser.signIn("user@example.com")
            for value in ["' OR 1=1 --", "1; DROP TABLE messages; --", "1 UNION SELECT * FROM users", "%27", "-1", "0x10", "1e3",
                          "99999999999999999999999", "\u{0}", String(repeating: "9", count: 5_000)] {
                let encoded = value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                for path in ["/api/conversations?after_id=\(encoded)", "/api/conversations?limit=\(encoded)",
                             "/api/conversations/\(own)/messages?after_id=\(encoded)", "/api/conversations/\(encoded)/messages"] {
                    let response = try await api.request(.GET, path)
                    #expect([400, 404].contains(response.status), "\(path) answered \(response.status)")
                    #expect(!response.body.contains("secret"))
                }
                let page = try await browser.get("/c?before=\(encoded)")
                #expect([400, 404].contains(page.status), "/c?before=\(value.prefix(20)) answered \(page.status)")
                let search = try await browser.get("/search?q=\(encoded)")
                #expect(search.status == 200)
                #expect(!search.body.contains("secret"))
            }
            #expect(try await other.messages(secret).first?["content"] as? String == "the other user's secret")
            #expect(try await api.messages(own).isEmpty)
        }
    }

    @Test("a next= that leaves the site, and CR or LF in a redirect or a download name, never become a header")
    func redirectsAndHeaders() async throws {
        try await withTestServer { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            _ = try await browser.post("/logout")
            for next in ["//evil.example/", "https://evil.example/", "/\\evil.example", "\\\\evil.example", "javascript:alert(1)",
                         "/c\r\nSet-Cookie: injected=1", "/\t/evil.example", "http:/evil.example", " //evil.example"] {
                let page = try await browser.get("/login?next=" + (next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
                #expect(page.status == 200)
                #expect(!page.body.contains("name=\"next\""), "the sign-in page keeps next=\(next)")
                let signedIn = try await browser.post("/login", form: ["email": "user@example.com", "password": "correct horse battery",
                                                                       "next": next])
                #expect(signedIn.status == 303)
                let location = signedIn.location ?? ""
                let target = URL(string: location, relativeTo: URL(string: server.baseURL))?.absoluteURL
                #expect(target?.host == "127.0.0.1" && !location.contains("\\") && !location.contains("evil"),
                        "next=\(next) sent the browser to \(location)")
                #expect(!signedIn.headers[canonicalForm: "set-cookie"].contains { $0.contains("injected") })
                _ = try await browser.post("/logout")
            }
            _ = try await browser.signIn("user@example.com")
            let id = try await browser.createConversation()
            #expect(try await browser.post("/c/\(id)/rename", form: ["title": "report\r\nSet-Cookie: injected=1\r\n\r\nbody"]).status == 303)
            for path in ["/c/\(id)/export.md", "/c/\(id)/export.json"] {
                let download = try await browser.get(path)
                #expect(download.status == 200)
                let disposition = try #require(download.headers.first(name: "content-disposition"))
                #expect(!disposition.contains("\r") && !disposition.contains("\n"))
                #expect(!download.headers[canonicalForm: "set-cookie"].contains { $0.contains("injected") })
            }
        }
    }
}
