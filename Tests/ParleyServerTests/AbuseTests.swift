import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// Requests meant to hurt: oversized bodies on every route, paths that climb out of the static folder, stolen or
/// guessed tokens, and what the session cookie lets a script or another site do.
@Suite("Security: abuse")
struct AbuseTests {
    /// The routes that act without reading a body (an oversized one is simply not read): each answers as usual.
    static let ignoresBody: Set<String> = [
        "DELETE /api/conversations/{id}", "POST /api/conversations/{id}/stop", "POST /c/{id}/stop", "POST /c/{id}/delete",
        "POST /logout", "POST /logout/everywhere", "POST /s/{token}/fork", "POST /s/{token}/revoke", "POST /shares/{id}/revoke",
    ]

    /// Routes that refuse a form body before its size matters: the import reads only `multipart/form-data` (its size
    /// limit is tested with a real upload in `ExportImportTests`).
    static let refusesFormBodies: [String: Int] = ["POST /settings/import": 415]

    @Test("a body far over the limit gets 413 on every route that reads one, never a 5xx; nothing is stored and the server carries on")
    func oversizedBodies() async throws {
        try await withTestServer(configure: { settings in
            settings.signup = .open
            settings.maxUploadBytes = 1 << 20
            settings.sendRateLimit = nil
        }) { server in
            var browser = server.browser()
            _ = try await browser.signUp("owner@example.com")
            var api = try await APIClient.signIn(server, email: "owner@example.com")
            let kept = try await browser.createConversation(content: "kept question")
            let filler = String(repeating: "a", count: 3 << 20)
            let form = ByteBuffer(string: "content=" + filler + "&title=" + filler)
            let json = ByteBuffer(string: "{\"content\": \"" + filler + "\"}")
            for route in server.routes.sorted() where !route.hasPrefix("GET ") {
                let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
                let conversation = try await api.createConversation()
                let path = parts[1].replacingOccurrences(of: "{id}", with: "\(conversation)")
                    .replacingOccurrences(of: "{token}", with: "no-such-token")
                let isAPI = path.hasPrefix("/api/")
                var headers = [("Content-Type", isAPI ? "application/json" : "application/x-www-form-urlencoded"),
                               ("Accept", "application/json")]
                if let token = browser.csrfToken { headers.append(("X-CSRF-Token", token)) }
                if isAPI, let token = api.token { headers.append(("Authorization", "Bearer \(token)")) }
                let response = try await browser.send(HTTPMethod(rawValue: parts[0]), path, headers: headers, bytes: isAPI ? json : form)
                #expect(response.status < 500, "\(route) answered \(response.status)")
                if !Self.ignoresBody.contains(route) {
                    #expect(response.status == Self.refusesFormBodies[route] ?? 413, "\(route) answered \(response.status) to a 3 MB body")
                }
                // Signing out (everywhere) ends the sessions: sign in again for the next route.
                if try await browser.get("/c").status != 200, try await browser.signIn("owner@example.com").status != 303 {
                    _ = try await browser.signUp("owner@example.com")
                }
                if try await api.request(.GET, "/api/conversations").status == 401 {
                    api = try await APIClient.signIn(server, email: "owner@example.com")
                }
            }
            let messages = try await api.messages(kept)
            #expect(messages.first?["content"] as? String == "kept question")
            let conversations = try await api.request(.GET, "/api/conversations")
            #expect(!conversations.body.contains("aaaaaaaaaa"))
            #expect(try await DatabaseHealth.read(server.dataDirectory).integrity == "ok")
        }
    }

    @Test("paths that climb out of the static folder, or name no attachment, get 404 and never a file's contents")
    func pathTraversal() async throws {
        try await withTestServer { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            for path in ["/static/..%2F..%2FPackage.swift", "/static/%2e%2e%2f%2e%2e%2fPackage.swift", "/static/..%252F..%252FPackage.swift",
                         "/static/....%2F%2FPackage.swift", "/static/%2Fetc%2Fpasswd", "/static/..%5C..%5CPackage.swift",
                         "/static/app.css%00.png", "/static/../../Package.swift", "/sw.js/..%2F..%2FPackage.swift",
                         "/attachments/..%2F1", "/attachments/1%20OR%201=1", "/attachments/-1", "/attachments/abc"] {
                let response = try await browser.get(path)
                #expect([400, 404].contains(response.status), "\(path) answered \(response.status)")
                #expect(!response.body.contains("swift-tools-version") && !response.body.contains("root:x:0"), "\(path) leaked a file")
            }
        }
    }

    @Test("the session cookie is HttpOnly, SameSite=Lax and Path=/ (Secure when the server says so), and signing out clears it")
    func sessionCookieFlags() async throws {
        for secure in [false, true] {
            try await withTestServer(configure: { $0.cookieSecure = secure }) { server in
                var browser = server.browser()
                let signedUp = try await browser.signUp("user@example.com")
                let session = try #require(signedUp.headers[canonicalForm: "set-cookie"].first { $0.hasPrefix("parley_session=") })
                let attributes = Set(session.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
                #expect(attributes.contains("httponly"))
                #expect(attributes.contains("samesite=lax"))
                #expect(attributes.contains("path=/"))
                #expect(attributes.contains("secure") == secure)
                let signedOut = try await browser.post("/logout")
                let cleared = try #require(signedOut.headers[canonicalForm: "set-cookie"].first { $0.hasPrefix("parley_session=") })
                #expect(cleared.lowercased().contains("max-age=0"))
                #expect(try await browser.get("/c").location?.hasPrefix("/login") == true)
            }
        }
    }

    @Test("share links carry 128 random bits: 500 guesses, random or one character off a real link, all get 404")
    func shareTokenGuessing() async throws {
        try await withTestServer { server in
            var owner = server.browser()
            _ = try await owner.signUp("owner@example.com")
            let id = try await owner.createConversation(content: "shared question")
            let shared = try await owner.post("/c/\(id)/share", form: ["author": "anonymous", "expires": "never"],
                                              headers: [("Accept", "application/json")])
            let url = try #require(try shared.json()["url"] as? String)
            let token = try #require(url.split(separator: "/").last.map(String.init))
            let alphabet = Array("0123456789abcdef")
            #expect(token.count >= 32 && token.allSatisfy(alphabet.contains), "the token \(token) is not 128 bits or more of hex")
            var visitor = server.browser()
            #expect(try await visitor.get("/s/\(token)").status == 200)
            var generator = SystemRandomNumberGenerator()
            for guess in 0..<500 {
                var candidate = Array(token)
                if guess % 2 == 0 {
                    let position = Int.random(in: 0..<candidate.count, using: &generator)
                    candidate[position] = alphabet.filter { $0 != candidate[position] }.randomElement(using: &generator)!
                } else {
                    candidate = (0..<token.count).map { _ in alphabet.randomElement(using: &generator)! }
                }
                let status = try await visitor.get("/s/\(String(candidate))").status
                #expect(status == 404, "guess \(String(candidate)) answered \(status)")
            }
            #expect(try await visitor.get("/s/\(token)").status == 200)
        }
    }
}
