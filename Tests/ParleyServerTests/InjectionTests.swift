import Foundation
import Testing

/// Hostile text in every field a user, an import or the provider config controls, on every page that shows it;
/// hostile query values, redirects and header values.
@Suite("Security: injection")
struct InjectionTests {
    /// The hostile text of each field, tagged with its name.
    static let email = HostileText(tag: "emailfield"), title = HostileText(tag: "titlefield"),
        message = HostileText(tag: "messagefield"), prompt = HostileText(tag: "promptfield"),
        query = HostileText(tag: "queryfield")
    /// An image's name with markup but no `/` (a name keeps only its last path component).
    static let fileName = "filefield<img src=x onerror=alert(2)>.png"
    /// The image's name as its escaped `alt` text.
    static let fileAlt = #"alt="filefield&lt;img src=x onerror=alert(2)&gt;.png""#

    /// Markdown links and images whose URL would run script, each spelled a way a filter might miss, with the text
    /// each leaves on the page.
    static let scriptLinks: [(markdown: String, shown: String)] = [
        ("[plainlink](javascript:alert(1))", ">plainlink</a>"), ("[caselink](JaVaScRiPt:alert(1))", ">caselink</a>"),
        ("[entitylink](&#106;avascript:alert(1))", ">entitylink</a>"),
        ("[tablink](java&#9;script:alert(1))", ">tablink</a>"),
        ("[vblink](vbscript:msgbox(1))", ">vblink</a>"),
        ("[datalink](data:text/html;base64,PHNjcmlwdD4=)", ">datalink</a>"),
        ("[reflink][evil]", ">reflink</a>"), ("<javascript:alert(1)>", ">javascript:alert(1)</a>"),
        ("![svgimage](data:image/svg+xml;base64,PHN2Zy8+)", #"alt="svgimage""#),
        ("![jsimage](javascript:alert(1))", #"alt="jsimage""#),
    ]

    /// Markdown holding every one of `scriptLinks`, after `text`.
    static func withScriptLinks(_ text: String) -> String {
        text + "\n\n" + scriptLinks.map(\.markdown).joined(separator: " ") + "\n\n[evil]: javascript:alert(1)\n"
    }

    /// A ChatGPT `conversations.json` holding one exchange.
    static func chatGPTFile(title: String, model: String, question: String, answer: String) throws -> String {
        func node(_ id: String, parent: String?, children: [String], role: String, text: String) -> [String: Any] {
            [
                "id": id, "parent": parent ?? NSNull(), "children": children,
                "message": [
                    "author": ["role": role], "create_time": 1_700_000_000,
                    "content": ["content_type": "text", "parts": [text]],
                ] as [String: Any],
            ]
        }
        let file: [[String: Any]] = [
            [
                "title": title, "create_time": 1_700_000_000, "default_model_slug": model, "current_node": "a",
                "mapping": [
                    "q": node("q", parent: nil, children: ["a"], role: "user", text: question),
                    "a": node("a", parent: "q", children: [], role: "assistant", text: answer),
                ],
            ]
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: file), as: UTF8.self)
    }

    /// How search shows a hit on `hostile`'s tag: marked, with the markup after it escaped.
    static func searchHit(_ hostile: HostileText) -> String {
        "<mark>\(hostile.tag)</mark>&lt;script&gt;alert(1)&lt;/script&gt;"
    }

    @Test(
        "the page check finds script, event handlers, script URLs and embeds however they are spelled, and passes them escaped"
    )
    func pageCheckFindsMarkup() {
        for html in [
            "<p><script>alert(1)</script></p>", "<svg/onload=alert(1)>", "<img src=x onerror=alert(1)>",
            "<a href=\"java&#115;cript&colon;alert(1)\">x</a>", "<a href=' JaVa\tScRiPt:x'>x</a>",
            "<iframe src=\"/x\"></iframe>",
            "<form action=\"javascript:alert(1)\">", "<script src=\"https://evil.example/x.js\"></script>",
            "<b>x</b></textarea>{{",
        ] {
            #expect(!InertHTML.problems(in: html).isEmpty, "\(html)")
        }
        let escaped = HostileText(tag: "field").escaped
        #expect(
            InertHTML.problems(
                in: "<p title=\"\(escaped)\">\(escaped)</p><script src=\"/static/app.js\" defer></script>") == [])
    }

    @Test(
        "hostile text in an email, title, message, system prompt, image name and share author is shown escaped on every page that shows it, and stored as written"
    )
    func hostileFieldsEverywhere() async throws {
        try await AttachmentTests.withVisionServer { server in
            var admin = server.browser()
            _ = try await admin.signUp("admin@example.com")
            let signedUp = try await server.signUp(Self.email.email)
            var browser = signedUp.browser
            let api = signedUp.api
            let id = try await api.createConversation(model: "mock-vision", systemPrompt: Self.prompt.text)
            let upload = try await browser.postMultipart(
                "/c/\(id)/messages", fields: [("content", Self.message.text)],
                files: [(Self.fileName, "image/png", try Fixtures.image("gradient.png"))])
            #expect(upload.status == 202, "\(upload.body.prefix(300))")
            try await AttachmentTests.waitForReply(api, id)
            #expect(try await browser.post("/c/\(id)/rename", form: ["title": Self.title.text]).status == 303)
            let token = try await ShareTests.share(&browser, id, author: "name")
            let userID = try await server.database().userID(Self.email.email)

            InertHTML.expectShows(
                try await browser.get("/c/\(id)"), "the conversation page",
                [Self.title.escaped, Self.prompt.escaped, Self.message.rendered, Self.fileAlt, Self.email.escaped])
            InertHTML.expectShows(try await browser.get("/c"), "the conversation list", [Self.title.escaped])
            InertHTML.expectShows(try await browser.get("/shares"), "the share list", [Self.title.escaped])
            InertHTML.expectShows(try await browser.get("/settings"), "the settings page", [Self.email.escaped])
            InertHTML.expectShows(
                try await browser.get(searchPath(Self.message.tag)), "a search for the message",
                [Self.searchHit(Self.message)])
            InertHTML.expectShows(
                try await browser.get(searchPath(Self.title.tag)), "a search for the title",
                [Self.searchHit(Self.title)])
            InertHTML.expectShows(
                try await browser.get(searchPath(Self.query.text)), "a hostile search", [Self.query.escaped])
            // The author is the email's part before the `@`; a visitor's page has no email of its own.
            InertHTML.expectShows(
                try await ShareTests.fetch(server, "/s/\(token)"), "the share page",
                [Self.title.escaped, Self.message.rendered, Self.fileAlt, "by " + Self.email.escaped])
            InertHTML.expectShows(try await admin.get("/admin"), "the admin dashboard", [Self.email.escaped])
            InertHTML.expectShows(try await admin.get("/admin/users"), "the admin user list", [Self.email.escaped])
            InertHTML.expectShows(
                try await admin.get("/admin/users/\(userID)"), "the admin user page", [Self.email.escaped])

            let conversation = try #require(try await api.conversations().first)
            #expect(conversation["title"] as? String == Self.title.text)
            #expect(try await api.messages(id).first?["content"] as? String == Self.message.text)
            let export = try await browser.get("/settings/export.json").json()
            #expect((export["account"] as? [String: Any])?["email"] as? String == Self.email.email)
            let exported = (export["conversations"] as? [[String: Any]])?.first?["conversation"] as? [String: Any]
            #expect(exported?["system_prompt"] as? String == Self.prompt.text)
        }
    }

    @Test(
        "an imported reply with script links, its title and its model name are inert on the list, conversation, search and share pages"
    )
    func importedRepliesAndModelNames() async throws {
        let reply = HostileText(tag: "replyfield"), model = HostileText(tag: "slugfield"),
            title = HostileText(tag: "importfield")
        try await withTestServer { server in
            let signedUp = try await server.signUp("user@example.com")
            var browser = signedUp.browser
            let api = signedUp.api
            let answer = Self.withScriptLinks(reply.text)
            let file = try Self.chatGPTFile(
                title: title.text, model: model.text, question: Self.withScriptLinks("question"),
                answer: answer)
            let imported = try await api.post("/settings/import", body: file)
            #expect(imported.status == 201, "\(imported.body.prefix(300))")
            let id = try #require((try imported.json()["conversation_ids"] as? [Int])?.first)
            let token = try await ShareTests.share(&browser, Int64(id))

            let links = Self.scriptLinks.map(\.shown)
            InertHTML.expectShows(try await browser.get("/c"), "the conversation list", [title.escaped, model.escaped])
            InertHTML.expectShows(
                try await browser.get("/c/\(id)"), "the conversation page",
                [title.escaped, reply.rendered, model.escaped] + links)
            InertHTML.expectShows(
                try await browser.get(searchPath(reply.tag)), "a search for the reply", [Self.searchHit(reply)])
            InertHTML.expectShows(
                try await ShareTests.fetch(server, "/s/\(token)"), "the share page",
                [title.escaped, reply.rendered] + links)

            let conversation = try #require(try await api.conversations().first)
            #expect(conversation["title"] as? String == title.text)
            #expect(conversation["model"] as? String == model.text)
            #expect(try await api.messages(Int64(id)).last?["content"] as? String == answer)
        }
    }

    @Test(
        "a configured model named with markup is inert on the composer, the conversation and every admin page; its price form refuses bad prices with an escaped message"
    )
    func configuredModelNames() async throws {
        let model = HostileText(tag: "modelfield")
        try await withTestServer(configure: { settings in
            let path = settings.dataDirectory + "/models.json"
            let config: [String: Any] = [
                "providers": [
                    [
                        "id": "mock", "kind": "openai", "base_url": settings.environment["OPENAI_BASE_URL"] ?? "",
                        "api_key_env": "OPENAI_API_KEY",
                    ]
                ],
                "models": [["id": model.text, "provider": "mock", "upstream_id": "mock-fast"]],
            ]
            try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: path))
            settings.providerConfigPath = path
        }) { server in
            let signedUp = try await server.signUp("admin@example.com")
            var admin = signedUp.browser
            let id = try await signedUp.api.createConversation(model: model.text)
            _ = try await signedUp.api.reply(id, "hello")
            InertHTML.expectShows(try await admin.get("/c"), "the composer", [model.escaped])
            InertHTML.expectShows(try await admin.get("/c/\(id)"), "the conversation page", [model.escaped])
            InertHTML.expectShows(try await admin.get("/admin"), "the admin dashboard", [model.escaped])
            InertHTML.expectShows(try await admin.get("/admin/users/1"), "the admin user page", [model.escaped])
            InertHTML.expectShows(try await admin.get("/admin/models"), "the model prices", [model.escaped])

            let refused = try await admin.post(
                "/admin/models",
                form: [
                    "model": model.text, "input": "<script>alert(1)</script>",
                    "cached_input": "0", "output": "1",
                ])
            InertHTML.expectShows(refused, "the refused price", [model.escaped], status: 422)
            let unknown = HostileText(tag: "unknownfield")
            let missing = try await admin.post(
                "/admin/models",
                form: [
                    "model": unknown.text, "input": "1", "cached_input": "0",
                    "output": "1",
                ])
            #expect(missing.status == 404)
            #expect(!missing.body.contains(unknown.tag))
            try await admin.setPrice(model.text, input: "1.5", output: "2")
            InertHTML.expectShows(
                try await admin.get("/admin/models"), "the model prices", [model.escaped, "$1.50 in"])
            let csv = try await admin.get("/admin/usage.csv")
            #expect(csv.headers.first(name: "content-type")?.hasPrefix("text/csv") == true)
            #expect(csv.headers.first(name: "content-disposition")?.hasPrefix("attachment;") == true)
            #expect(csv.body.contains(#""\#(model.text.replacingOccurrences(of: "\"", with: "\"\""))""#))
        }
    }

    @Test(
        "invalid UTF-8, overlong or full-width angle brackets, zero-width and bidi controls in a form never turn into markup or a header"
    )
    func encodingTricks() async throws {
        try await withTestServer { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let api = try await APIClient.signIn(server, email: "user@example.com")
            let token = Browser.encode(["csrf_token": try #require(browser.csrfToken)])
            for encoded in [
                "%C0%BCscript%C0%BEalert(1)%C0%BC/script%C0%BE", "%EF%BC%9Cscript%EF%BC%9Ealert(1)", "%E2%80%AEgnp.exe",
                "x%E2%80%8B%3Cscript%3E", "%FF%FE%3Cscript%3Ealert(1)", "%F0%9F%98%80%E2%80%8Bjava%E2%80%8Bscript:",
            ] {
                let id = try await browser.createConversation()
                let renamed = try await browser.send(
                    .POST, "/c/\(id)/rename",
                    headers: [("Content-Type", "application/x-www-form-urlencoded")],
                    body: token + "&title=" + encoded)
                #expect([303, 400, 422].contains(renamed.status), "\(encoded) answered \(renamed.status)")
                InertHTML.expectInert(try await browser.get("/c/\(id)"), "the page titled \(encoded)")
                let stored = try #require(try await api.conversations().first?["title"] as? String)
                if renamed.status == 303 {
                    // Only a `<` sent as one may come back as one: no overlong or full-width form turns into it.
                    #expect(
                        stored.filter { $0 == "<" }.count == encoded.components(separatedBy: "%3C").count - 1,
                        "\(encoded) was stored as \(stored)")
                    if let decoded = encoded.removingPercentEncoding { #expect(stored == decoded) }
                }
                let download = try await browser.get("/c/\(id)/export.md")
                let disposition = try #require(download.headers.first(name: "content-disposition"))
                #expect(disposition.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 }, "\(disposition)")
            }
        }
    }

    @Test(
        "a NUL never cuts stored text short behind the checks' back, and an email with a NUL tail never signs in to the account it starts with"
    )
    func nulCharacters() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            let api = try await server.signUp("user@example.com").api
            // SQLite reads a bound string up to its first NUL: the tail would give the account a sign-in throttle key
            // per tail.
            let password = "correct horse battery"
            let tailed = try await api.request(
                .POST, "/api/login", json: ["email": "user@example.com\u{0}tail", "password": password])
            #expect(tailed.status == 401)
            var newcomer = server.browser()
            #expect(try await newcomer.signUp("newcomer@example.com\u{0}").status == 422)
            #expect(
                try await api.request(
                    .POST, "/api/login", json: ["email": "newcomer@example.com", "password": password]
                ).status == 401)

            let created = try await api.request(
                .POST, "/api/conversations", json: ["title": "\u{0}titled", "system_prompt": "be\u{0} terse"])
            #expect(created.status == 201)
            let id = Int64(try #require(try created.json()["id"] as? Int))
            #expect(try await api.request(.POST, "/api/conversations", json: ["title": "\u{0}"]).status == 422)
            #expect(try await api.send(id, "\u{0} ").status == 422)
            try await api.sendAndWait(id, "before\u{0}after")
            let conversation = try #require(try await api.conversations().first)
            #expect(conversation["title"] as? String == "titled")
            #expect(conversation["system_prompt"] as? String == "be terse")
            #expect(try await api.messages(id).first?["content"] as? String == "beforeafter")
        }
    }

    @Test("a served image's name cannot add a header or a second file name, however the upload spelled it")
    func uploadNamesInHeaders() async throws {
        try await AttachmentTests.withVisionServer { server in
            var (browser, api, conversation) = try await AttachmentTests.start(server)
            let names = [
                "evil\r\nSet-Cookie: injected=1.png", "evil%0D%0ASet-Cookie:%20injected=1.png",
                #"a\"; filename*=UTF-8''evil.html; x=\".png"#, "evil\u{0}.html\u{0}.png",
            ]
            var checked = 0
            for name in names {
                let sent = try await browser.postMultipart(
                    "/c/\(conversation)/messages", fields: [("content", "named")],
                    files: [(name, "image/png", try Fixtures.image("gradient.png"))])
                #expect([202, 400].contains(sent.status), "\(name.debugDescription): \(sent.body.prefix(300))")
                guard sent.status == 202 else { continue }
                try await AttachmentTests.waitForReply(api, conversation)
                let question = try await api.messages(conversation).last { $0["role"] as? String == "user" }
                let id = try #require((question?["attachments"] as? [[String: Any]])?.first?["id"] as? Int)
                let served = try await browser.get("/attachments/\(id)")
                #expect(served.status == 200)
                #expect(served.headers.first(name: "content-type") == "image/png")
                #expect(!served.headers[canonicalForm: "set-cookie"].contains { $0.contains("injected") })
                let disposition = try #require(served.headers.first(name: "content-disposition"))
                // One quoted name without a quote, backslash or control character, and one percent-encoded name.
                let safe = /inline; filename="[\x20-\x21\x23-\x5B\x5D-\x7E]*"; filename\*=UTF-8''[A-Za-z0-9%._-]*/
                #expect(
                    disposition.wholeMatch(of: safe) != nil, "\(name.debugDescription) was served as \(disposition)")
                checked += 1
            }
            #expect(checked >= names.count - 1, "only \(checked) names were accepted")
        }
    }

    @Test(
        "SQL metacharacters in every cursor, id and query parameter get 200, 400 or 404, never a 500, never another user's rows, and match nothing by wildcard"
    )
    func hostilePagination() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            let other = try await server.signUp("other@example.com").api
            let secret = try await other.createConversation()
            _ = try await other.send(secret, "the other user's secret")
            let signedUp = try await server.signUp("user@example.com")
            var browser = signedUp.browser
            let api = signedUp.api
            let own = try await api.createConversation()
            try await api.sendAndWait(own, "plain words only")
            for value in [
                "' OR 1=1 --", "1; DROP TABLE messages; --", "\"; DROP TABLE messages; --",
                "1 UNION SELECT * FROM users",
                "%", "_", "%_%", "\\", "%27", "-1", "0x10", "1e3", "99999999999999999999999", "\u{0}",
                String(repeating: "9", count: 5_000), String(repeating: "%' OR '", count: 500),
            ] {
                let encoded = value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                for path in [
                    "/api/conversations?after_id=\(encoded)", "/api/conversations?limit=\(encoded)",
                    "/api/conversations?archived=\(encoded)", "/api/conversations/\(own)/messages?after_id=\(encoded)",
                    "/api/conversations/\(own)/messages?limit=\(encoded)", "/api/conversations/\(encoded)/messages",
                ] {
                    let response = try await api.request(.GET, path)
                    #expect(
                        [200, 400, 404].contains(response.status), "\(path.prefix(80)) answered \(response.status)")
                    #expect(!response.body.contains("secret"))
                }
                for path in [
                    "/c?before=\(encoded)", "/c?archived=\(encoded)", "/c/\(encoded)", "/shares?created=\(encoded)",
                    "/shares?updated=\(encoded)", "/settings?imported=\(encoded)", "/s/\(encoded)",
                    "/attachments/\(encoded)",
                    "/attachments/1?share=\(encoded)", "/c/\(own)/export.json?x=\(encoded)",
                ] {
                    let response = try await browser.get(path)
                    // After 30 unknown share tokens the address is refused share lookups for a while (429, by design).
                    let allowed: Set<Int> =
                        path.contains("share=") || path.hasPrefix("/s/") ? [400, 404, 429] : [200, 400, 404]
                    #expect(allowed.contains(response.status), "\(path.prefix(80)) answered \(response.status)")
                    #expect(!response.body.contains("secret"))
                }
                let search = try await browser.get("/search?q=\(encoded)")
                #expect(search.status == 200)
                #expect(
                    SearchTests.resultLinks(search.body).isEmpty, "the search \(value.prefix(20)) matched by wildcard")
            }
            #expect(try await other.messages(secret).first?["content"] as? String == "the other user's secret")
            #expect(try await api.messages(own).first?["content"] as? String == "plain words only")
            #expect(try await DatabaseHealth.read(server.dataDirectory).integrity == "ok")
        }
    }

    @Test(
        "a next= that leaves the site never becomes the redirect, whether signing in, already signed in, signing up or coming back to a share"
    )
    func openRedirects() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            _ = try await browser.post("/logout")
            let hostile = [
                "//evil.example/", "https://evil.example/", "/\\evil.example", "\\\\evil.example",
                "javascript:alert(1)",
                "%2F%2Fevil.example", "/%2F%2Fevil.example", "/c\r\nSet-Cookie: injected=1", "/\t/evil.example",
                "http:/evil.example", " //evil.example", "///evil.example", "/\u{3000}/evil.example",
            ]
            for next in hostile {
                let query = "next=" + (next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
                let form = try await browser.get("/login?" + query)
                #expect(form.status == 200)
                let kept = form.body.firstMatch(of: /name="next" value="([^"]*)"/).map { String($0.1) }
                Self.expectLocal(kept, server, "the sign-in form's next=\(next)")
                let signedIn = try await browser.post(
                    "/login",
                    form: [
                        "email": "user@example.com", "password": "correct horse battery",
                        "next": next,
                    ])
                #expect(signedIn.status == 303)
                Self.expectLocal(signedIn.location, server, "signing in with next=\(next)")
                #expect(!signedIn.headers[canonicalForm: "set-cookie"].contains { $0.contains("injected") })
                let already = try await browser.get("/login?" + query)
                #expect(already.status == 303)
                Self.expectLocal(already.location, server, "a signed-in visit with next=\(next)")
                _ = try await browser.post("/logout")
            }
            var newcomer = server.browser()
            _ = try await newcomer.get("/signup?next=%2F%2Fevil.example")
            let signedUp = try await newcomer.post(
                "/signup?next=%2F%2Fevil.example",
                form: [
                    "email": "new@example.com",
                    "password": "correct horse battery", "next": "//evil.example",
                ])
            #expect(signedUp.status == 303)
            Self.expectLocal(signedUp.location, server, "signing up with next=")

            // A signed-out fork sends to sign-in and back to the link, whatever the token holds.
            for token in [
                "%2F%2Fevil.example", "%0D%0ASet-Cookie:%20injected=1", "..%2F..%2F%2F%2Fevil.example",
                "%5C%5Cevil.example",
            ] {
                var visitor = server.browser()
                _ = try await visitor.get("/login")
                let fork = try await visitor.post("/s/\(token)/fork")
                #expect(fork.status == 303, "fork \(token) answered \(fork.status)")
                #expect(!fork.headers[canonicalForm: "set-cookie"].contains { $0.contains("injected") })
                Self.expectLocal(fork.location, server, "forking \(token)")
                let back = fork.location.flatMap(URLComponents.init(string:))?.queryItems?.first { $0.name == "next" }?
                    .value
                let signedIn = try await visitor.post(
                    "/login",
                    form: [
                        "email": "user@example.com", "password": "correct horse battery",
                        "next": back ?? "",
                    ])
                #expect(signedIn.location == "/s/\(token)")
                Self.expectLocal(signedIn.location, server, "coming back to \(token)")
            }
        }
    }

    /// Expects `location` (nil: nothing was kept) to lead to a page of this server: a path, never another host, a
    /// backslash or a control character.
    static func expectLocal(
        _ location: String?, _ server: TestServer, _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let location else { return }
        let target = URL(string: location, relativeTo: URL(string: server.baseURL))?.absoluteURL
        #expect(
            location.hasPrefix("/") && !location.hasPrefix("//") && target?.host == "127.0.0.1",
            "\(what) led to \(location)",
            sourceLocation: sourceLocation)
        #expect(
            !location.unicodeScalars.contains { $0 == "\\" || $0.properties.generalCategory == .control },
            "\(what) led to \(location)", sourceLocation: sourceLocation)
    }
}
