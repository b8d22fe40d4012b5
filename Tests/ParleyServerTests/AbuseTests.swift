import Foundation
import NIOCore
import NIOHTTP1
import ParleyCore
import Testing

@testable import ParleyServer

/// Requests meant to hurt: oversized bodies on every route, paths that climb out of the static folder, stolen or
/// guessed tokens, and what the session cookie lets a script or another site do.
@Suite("Security: abuse")
struct AbuseTests {
    /// The routes that act without reading a body (an oversized one is simply not read): each answers as usual.
    static let ignoresBody: Set<String> = [
        "DELETE /api/conversations/{id}", "POST /api/conversations/{id}/stop", "POST /c/{id}/stop",
        "POST /c/{id}/delete",
        "POST /logout", "POST /logout/everywhere", "POST /s/{token}/fork", "POST /s/{token}/revoke",
        "POST /shares/{id}/revoke", "DELETE /api/conversations/{id}/messages/{message_id}",
        "POST /settings/keys/{id}/revoke", "DELETE /api/keys/{id}", "POST /admin/keys/{id}/revoke",
        "POST /admin/groups/{id}/delete", "POST /settings/sessions/{id}/sign-out", "POST /admin/invites/{id}/revoke",
        "POST /assistants/{id}/delete", "POST /assistants/{id}/duplicate", "POST /assistants/{id}/start",
        "DELETE /api/assistants/{id}", "POST /api/assistants/{id}/duplicate", "DELETE /api/assistants/{id}/icon",
        "POST /api/conversations/{id}/pin",
        "POST /api/conversations/{id}/unpin", "POST /api/conversations/{id}/archive",
        "POST /api/conversations/{id}/unarchive", "POST /prompts/{id}/delete", "POST /prompts/{id}/duplicate",
        "DELETE /api/prompts/{id}", "POST /api/prompts/{id}/duplicate",
        "POST /knowledge/{id}/delete", "POST /knowledge/{id}/documents/{document_id}/delete",
        "DELETE /api/collections/{id}", "DELETE /api/collections/{id}/documents/{document_id}",
        "DELETE /api/documents/{id}",
    ]

    /// Routes that refuse a form body before its size matters: the import and a conversation's document upload read only
    /// files (multipart, below) or JSON, the OpenAI-compatible endpoint JSON alone, and an icon's upload and a collection's first find the assistant or
    /// the collection (none has the conversation's id here).
    static let refusesFormBodies: [String: Int] = [
        "POST /settings/import": 415, "POST /v1/chat/completions": 415, "POST /assistants/{id}/icon": 404,
        "POST /knowledge/{id}/documents": 404, "POST /api/collections/{id}/documents": 404,
        "POST /c/{id}/documents": 415, "POST /api/conversations/{id}/documents": 415,
    ]

    /// The largest image the oversized-body test lets an upload carry (`PARLEY_MAX_UPLOAD_MB`).
    static let maxUploadBytes = 1 << 20

    /// The file field and largest file of each route that reads multipart uploads.
    static let uploadLimits: [String: (field: String, maxBytes: Int)] = [
        "/c/{id}/messages": ("image", maxUploadBytes), "/api/conversations/{id}/messages": ("image", maxUploadBytes),
        "/settings/import": ("file", ImportReader.maxBytes),
        "/assistants/{id}/icon": ("icon", AssistantService.maxIconBytes),
        "/knowledge/{id}/documents": ("document", maxDocumentBytes),
        "/api/collections/{id}/documents": ("document", maxDocumentBytes),
        "/c/{id}/documents": ("document", maxDocumentBytes),
        "/api/conversations/{id}/documents": ("document", maxDocumentBytes),
    ]

    /// The largest document the oversized-body test lets an upload carry (`PARLEY_MAX_DOCUMENT_MB`).
    static let maxDocumentBytes = 1 << 20

    @Test(
        "a body far over the limit gets 413 on every route that reads one, and a multipart file over its route's limit too; never a 5xx, nothing stored, the server carries on"
    )
    func oversizedBodies() async throws {
        try await withTestServer(configure: { settings in
            settings.signup = .open
            settings.maxUploadBytes = Self.maxUploadBytes
            settings.maxDocumentBytes = Self.maxDocumentBytes
            settings.sendRateLimit = nil
        }) { server in
            var browser = server.browser()
            _ = try await browser.signUp("owner@example.com")
            var api = try await APIClient.signIn(server, email: "owner@example.com")
            let kept = try await browser.createConversation(content: "kept question")
            let filler = String(repeating: "a", count: 3 * AppRequestContext.maxBodySize)
            let form = ByteBuffer(string: "content=" + filler + "&title=" + filler)
            let json = ByteBuffer(string: "{\"content\": \"" + filler + "\"}")
            for route in server.routes.sorted() where !route.hasPrefix("GET ") {
                let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
                let conversation = try await api.createConversation()
                let path = parts[1].replacingOccurrences(of: "{id}", with: "\(conversation)")
                    .replacingOccurrences(of: "{token}", with: "no-such-token")
                let isAPI = path.hasPrefix("/api/")
                var headers = [
                    ("Content-Type", isAPI ? "application/json" : "application/x-www-form-urlencoded"),
                    ("Accept", "application/json"),
                ]
                if let token = browser.csrfToken { headers.append(("X-CSRF-Token", token)) }
                if isAPI, let token = api.token { headers.append(("Authorization", "Bearer \(token)")) }
                let response = try await browser.send(
                    HTTPMethod(rawValue: parts[0]), path, headers: headers, bytes: isAPI ? json : form)
                #expect(response.status < 500, "\(route) answered \(response.status)")
                if !Self.ignoresBody.contains(route) {
                    #expect(
                        response.status == Self.refusesFormBodies[route] ?? 413,
                        "\(route) answered \(response.status) to a body 3× the limit")
                }
                // Signing out (everywhere) ends the sessions: sign in again for the next route.
                if try await browser.get("/c").status != 200,
                    try await browser.signIn("owner@example.com").status != 303
                {
                    _ = try await browser.signUp("owner@example.com")
                }
                if try await api.request(.GET, "/api/conversations").status == 401 {
                    api = try await APIClient.signIn(server, email: "owner@example.com")
                }
            }
            let conversation = try await api.createConversation()
            let assistant = try #require(
                try await api.request(.POST, "/api/assistants", json: ["name": "Big icon", "model": "mock-fast"])
                    .json()["id"] as? Int)
            let collection = try #require(
                try await api.request(.POST, "/api/collections", json: ["name": "Big documents"]).json()["id"] as? Int)
            for route in CSRFMiddleware.uploadRoutes.sorted() {
                let limit = try #require(
                    Self.uploadLimits[route], "\(route) reads uploads but has no limit in this test")
                var body = MultipartBody()
                body.fields = [("csrf_token", try #require(browser.csrfToken)), ("content", "too big")]
                body.files = [
                    (
                        field: limit.field, name: "big.png", type: "image/png",
                        bytes: [UInt8](repeating: 0x89, count: limit.maxBytes + AppRequestContext.maxBodySize)
                    )
                ]
                let owner =
                    route.hasPrefix("/assistants/")
                    ? assistant
                    : route.hasPrefix("/knowledge/") || route.hasPrefix("/api/collections/")
                        ? collection : Int(conversation)
                let path = route.replacingOccurrences(of: "{id}", with: "\(owner)")
                let response = try await browser.send(
                    .POST, path, headers: [("Content-Type", body.contentType), ("Accept", "application/json")],
                    bytes: body.bytes)
                #expect(response.status == 413, "\(route) answered \(response.status) to a file over its limit")
            }
            #expect(try await api.messages(conversation).isEmpty)
            let messages = try await api.messages(kept)
            #expect(messages.first?["content"] as? String == "kept question")
            let conversations = try await api.request(.GET, "/api/conversations")
            #expect(!conversations.body.contains("aaaaaaaaaa"))
            #expect(try await DatabaseHealth.read(server.dataDirectory).integrity == "ok")
        }
    }

    @Test(
        "paths that climb out of the static folder, however encoded, or name no attachment, get 400 or 404 and never a file's contents"
    )
    func pathTraversal() async throws {
        try await withTestServer { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let climbs = [
                "..%2F..%2FPackage.swift", "%2e%2e%2f%2e%2e%2fPackage.swift", "..%252F..%252FPackage.swift",
                "%252e%252e%252fPackage.swift", "....%2F%2FPackage.swift", ".%2e/.%2e/Package.swift",
                "..%5C..%5CPackage.swift",
                "../../Package.swift", "..", "%2e%2e", "%2Fetc%2Fpasswd", "/etc/passwd", "app.css%00.png",
                "..%2F..%2FTemplates%2Flayout.mustache",
                "..%2F..%2FSources%2FParleyServer%2FApp%2FServerSettings.swift",
            ]
            let attachments = [
                "..%2F1", "1%20OR%201=1", "-1", "abc", "1.0", "0x1", "%2Fetc%2Fpasswd", "99999999999999999999999",
            ]
            let paths =
                climbs.map { "/static/" + $0 } + ["/sw.js/..%2F..%2FPackage.swift", "/sw.js%2F..%2F..%2FPackage.swift"]
                + attachments.map { "/attachments/" + $0 }
            for path in paths {
                let response = try await browser.get(path)
                #expect(
                    [400, 404].contains(response.status),
                    "\(path) answered \(response.status) \(response.location ?? "")")
                for secret in ["swift-tools-version", "root:x:0", "{{", "public struct ServerSettings"] {
                    #expect(!response.body.contains(secret), "\(path) leaked a file")
                }
            }
        }
    }

    @Test(
        "the session and CSRF cookies are HttpOnly, SameSite=Lax and Path=/, Secure when the setting (or, automatically, a non-loopback host) says so, the CSRF one then named __Host-; signing in and out give a new CSRF token; signing out clears the session",
        arguments: [nil, false, true] as [Bool?])
    func cookieFlags(_ secure: Bool?) async throws {
        try await withTestServer(configure: { $0.cookieSecure = secure }) { server in
            var browser = server.browser()
            let csrfName = secure == true ? "__Host-parley_csrf=" : "parley_csrf="
            let form = try await browser.get("/signup")
            let signedUp = try await browser.post(
                "/signup", form: ["email": "user@example.com", "password": "correct horse battery"])
            let csrf = try #require(form.headers[canonicalForm: "set-cookie"].first { $0.hasPrefix(csrfName) })
            let session = try #require(
                signedUp.headers[canonicalForm: "set-cookie"].first { $0.hasPrefix("parley_session=") })
            let signedInCSRF = try #require(
                signedUp.headers[canonicalForm: "set-cookie"].first { $0.hasPrefix(csrfName) })
            #expect(signedInCSRF.prefix { $0 != ";" } != csrf.prefix { $0 != ";" })
            for cookie in [csrf, session, signedInCSRF] {
                let attributes = Set(
                    cookie.split(separator: ";").dropFirst().map {
                        $0.trimmingCharacters(in: .whitespaces).lowercased()
                    })
                #expect(attributes.isSuperset(of: ["httponly", "samesite=lax", "path=/"]), "\(cookie)")
                // The test server listens on loopback, so automatic means not Secure.
                #expect(attributes.contains("secure") == (secure ?? false), "\(cookie)")
            }
            let signedOut = try await browser.post("/logout")
            let cleared = try #require(
                signedOut.headers[canonicalForm: "set-cookie"].first { $0.hasPrefix("parley_session=") })
            #expect(cleared.lowercased().contains("max-age=0"))
            let signedOutCSRF = try #require(
                signedOut.headers[canonicalForm: "set-cookie"].first { $0.hasPrefix(csrfName) })
            #expect(signedOutCSRF.prefix { $0 != ";" } != signedInCSRF.prefix { $0 != ";" })
            #expect(try await browser.get("/c").location?.hasPrefix("/login") == true)
        }
    }

    @Test(
        "automatic Secure cookies are on for every host but loopback",
        arguments: [
            ("127.0.0.1", false), ("localhost", false), ("::1", false), ("0.0.0.0", true), ("192.168.1.10", true),
            ("parley.example.com", true),
        ])
    func automaticSecureCookies(_ host: String, _ secure: Bool) throws {
        #expect(
            try ServerSettings(environment: ["PARLEY_HOST": host, "PARLEY_COOKIE_SECURE": "auto"]).usesSecureCookies
                == secure)
        #expect(try ServerSettings(environment: ["PARLEY_HOST": host]).usesSecureCookies == secure)
    }

    @Test(
        "share links carry 128 random bits: 30 guesses, random or one character off a real link, get 404, then the address gets 429 on every link until the window passes; the owner is unaffected"
    )
    func shareTokenGuessing() async throws {
        try await withTestServer { server in
            var owner = server.browser()
            _ = try await owner.signUp("owner@example.com")
            let id = try await owner.createConversation(content: "shared question")
            let shared = try await owner.post(
                "/c/\(id)/share", form: ["author": "anonymous", "expires": "never"],
                headers: [("Accept", "application/json")])
            let url = try #require(try shared.json()["url"] as? String)
            let token = try #require(url.split(separator: "/").last.map(String.init))
            let alphabet = Array("0123456789abcdef")
            #expect(
                token.count >= 32 && token.allSatisfy(alphabet.contains),
                "the token \(token) is not 128 bits or more of hex")
            var visitor = server.browser()
            #expect(try await visitor.get("/s/\(token)").status == 200)
            var generator = SystemRandomNumberGenerator()
            for guess in 0..<40 {
                var candidate = Array(token)
                if guess % 2 == 0 {
                    let position = Int.random(in: 0..<candidate.count, using: &generator)
                    candidate[position] = alphabet.filter { $0 != candidate[position] }.randomElement(
                        using: &generator)!
                } else {
                    candidate = (0..<token.count).map { _ in alphabet.randomElement(using: &generator)! }
                }
                let response = try await visitor.get("/s/\(String(candidate))")
                if guess < 30 {
                    #expect(response.status == 404, "guess \(guess) answered \(response.status)")
                } else {
                    #expect(response.status == 429, "guess \(guess) answered \(response.status)")
                    #expect(Int(response.headers["retry-after"].first ?? "").map { $0 > 0 && $0 <= 600 } == true)
                }
            }
            // The guessing address is refused the real link too (its answer must not tell a guess from a link)...
            #expect(try await visitor.get("/s/\(token)").status == 429)
            #expect(try await visitor.get("/attachments/1?share=\(token)").status == 429)
            // ...while the owner's own pages, which name no token, still work, and the link is untouched.
            let list = try await owner.get("/shares")
            #expect(list.status == 200)
            #expect(list.body.contains("shared question"))
            #expect(try await owner.get("/c/\(id)").status == 200)
        }
    }

    @Test(
        "an image that is also HTML or script is stored and served as the image it is, with nosniff, to its owner and through a share; one that is not a whole image is refused",
        arguments: Polyglot.allCases)
    func polyglotUploads(_ polyglot: Polyglot) async throws {
        try await AttachmentTests.withVisionServer { server in
            var (browser, api, conversation) = try await AttachmentTests.start(server)
            let bytes = try polyglot.bytes()
            let sent = try await browser.postMultipart(
                "/c/\(conversation)/messages", fields: [("content", "look")],
                files: [("page.html", "text/html", bytes)])
            guard let type = polyglot.storedType else {
                #expect(sent.status == 415, "\(sent.body.prefix(300))")
                #expect(try await api.messages(conversation).isEmpty)
                return
            }
            #expect(sent.status == 202, "\(sent.body.prefix(300))")
            try await AttachmentTests.waitForReply(api, conversation)
            let listed = try #require(
                (try await api.messages(conversation).first?["attachments"] as? [[String: Any]])?.first)
            #expect(listed["content_type"] as? String == type)
            let id = try #require(listed["id"] as? Int)
            let token = try await ShareTests.share(&browser, conversation)
            for served in [
                try await browser.get("/attachments/\(id)"),
                try await ShareTests.fetch(server, "/attachments/\(id)?share=\(token)"),
            ] {
                #expect(served.status == 200)
                #expect(served.headers.first(name: "content-type") == type)
                #expect(served.headers.first(name: "x-content-type-options") == "nosniff")
                #expect(served.headers.first(name: "content-security-policy")?.contains("default-src 'self'") == true)
                #expect(served.headers.first(name: "content-disposition")?.hasPrefix("inline;") == true)
                #expect(served.bytes == bytes)
            }
        }
    }

    @Test(
        "a GIF, JPEG or WebP whose header claims sides over the limit gets 422 and stores nothing",
        arguments: SizeClaim.allCases)
    func oversizedDimensions(_ claim: SizeClaim) async throws {
        try await AttachmentTests.withVisionServer { server in
            var (browser, api, conversation) = try await AttachmentTests.start(server)
            let sent = try await browser.postMultipart(
                "/c/\(conversation)/messages", fields: [("content", "huge")],
                files: [("huge", "application/octet-stream", try claim.bytes())])
            #expect(sent.status == 422, "\(sent.body.prefix(300))")
            #expect(try await api.messages(conversation).isEmpty)
        }
    }
}

/// Files that are images by their bytes and HTML or script as well.
enum Polyglot: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case pngWithHTMLAfterEnd, gifThatIsJavaScript, jpegWithScriptComment, jpegWithHTMLAfterEnd

    var testDescription: String { rawValue }

    /// Markup a browser that sniffed the file would run.
    static let html = Array("<!doctype html><html><body><script>alert(1)</script></body></html>".utf8)

    /// The type the image is stored and served with, or nil when it must be refused (415: the JPEG does not end
    /// where a JPEG ends).
    var storedType: String? {
        switch self {
        case .pngWithHTMLAfterEnd: "image/png"
        case .gifThatIsJavaScript: "image/gif"
        case .jpegWithScriptComment: "image/jpeg"
        case .jpegWithHTMLAfterEnd: nil
        }
    }

    /// The file's bytes.
    func bytes() throws -> [UInt8] {
        switch self {
        case .pngWithHTMLAfterEnd:
            return try Fixtures.image("gradient.png") + Self.html
        case .gifThatIsJavaScript:
            // The width's two bytes open a script comment that the bytes after the trailer close:
            // `GIF87a/*…*/=alert(1);`.
            var gif = try Fixtures.image("gradient.gif")
            gif.replaceSubrange(6..<8, with: Array("/*".utf8))
            return gif + Array("*/=alert(1);".utf8)
        case .jpegWithScriptComment:
            let jpeg = try Fixtures.image("gradient.jpg")
            let comment = Self.html
            let length = comment.count + 2
            return Array(jpeg.prefix(2)) + [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)] + comment
                + jpeg.dropFirst(2)
        case .jpegWithHTMLAfterEnd:
            return try Fixtures.image("gradient.jpg") + Self.html
        }
    }
}

/// Real images of each format but PNG (tested with the bad uploads) whose header claims sides of 65,535 pixels or more.
enum SizeClaim: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case gif, jpeg, webp

    var testDescription: String { rawValue }

    /// The file's bytes, its size fields set to their largest values.
    func bytes() throws -> [UInt8] {
        switch self {
        case .gif:
            var gif = try Fixtures.image("gradient.gif")
            gif.replaceSubrange(6..<10, with: [0xFF, 0xFF, 0xFF, 0xFF])
            return gif
        case .jpeg:
            var jpeg = try Fixtures.image("gradient.jpg")
            let frame = try #require(
                jpeg.indices.dropLast().first { jpeg[$0] == 0xFF && [0xC0, 0xC1, 0xC2].contains(jpeg[$0 + 1]) })
            jpeg.replaceSubrange(frame + 5..<frame + 9, with: [0xFF, 0xFF, 0xFF, 0xFF])
            return jpeg
        case .webp:
            var webp = try Fixtures.image("translucent.webp")  // a VP8X file: its canvas size is 24 bits a side
            webp.replaceSubrange(24..<30, with: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
            return webp
        }
    }
}
