import AsyncHTTPClient
import Foundation
import GRDB
import NIOCore
import ParleyCore
import ParleyServer
import Testing

/// Image uploads end to end: multipart sends, storage in SQLite, `/attachments/{id}`, vision requests, and every
/// kind of bad upload refused with its status while stored data stays as it was.
@Suite("Attachments", .serialized)
struct AttachmentTests {
    /// A server whose mock upstream offers a vision model and a model that cannot see images.
    static func withVisionServer(maxUploadBytes: Int = 20 << 20, _ body: (TestServer) async throws -> Void) async throws
    {
        try await withTestServer(
            configure: { settings in
                settings.signup = .open
                settings.maxUploadBytes = maxUploadBytes
                let path = settings.dataDirectory + "/models.json"
                let config = """
                    {"providers": [{"id": "mock", "kind": "openai", "base_url": "\(settings.environment["OPENAI_BASE_URL"] ?? "")",
                                    "api_key_env": "OPENAI_API_KEY"}],
                     "models": [{"id": "mock-vision", "provider": "mock", "upstream_id": "mock-fast", "vision": true},
                                {"id": "mock-blind", "provider": "mock", "upstream_id": "mock-fast", "vision": false},
                                {"id": "mock-draw", "provider": "mock", "upstream_id": "mock-image", "kind": "image",
                                 "price": {"per_image": 0.04}},
                                {"id": "mock-draw-broken", "provider": "mock", "upstream_id": "mock-error-image", "kind": "image"}]}
                    """
                try Data(config.utf8).write(to: URL(fileURLWithPath: path))
                settings.providerConfigPath = path
            }, body)
    }

    /// Signs up, creates a conversation on the vision model; returns the browser, its API client and the conversation.
    static func start(_ server: TestServer) async throws -> (Browser, APIClient, Int64) {
        let (browser, api) = try await server.signUp("pictures@example.com")
        let conversation = try await api.createConversation(model: "mock-vision")
        return (browser, api, conversation)
    }

    /// Waits, at most 10 s, until the conversation's last reply has finished.
    static func waitForReply(_ api: APIClient, _ conversation: Int64) async throws {
        _ = try await api.lastMessage(of: conversation) { $0?["status"] as? String != "streaming" }
    }

    @Test(
        "images sent with a message are stored, listed, served to their owner as uploaded, and reach the vision model")
    func uploadAndServe() async throws {
        try await Self.withVisionServer { server in
            var (browser, api, conversation) = try await Self.start(server)
            let png = try Fixtures.image("gradient.png"), jpeg = try Fixtures.image("gradient.jpg")
            let sent = try await browser.postMultipart(
                "/c/\(conversation)/messages",
                fields: [("content", "What is in these?"), ("model", "mock-vision")],
                files: [("a.png", "image/png", png), ("b.jpg", "application/octet-stream", jpeg)])
            #expect(sent.status == 202, "\(sent.body)")
            try await Self.waitForReply(api, conversation)

            let question = try #require(try await api.messages(conversation).first)
            let listed = try #require(question["attachments"] as? [[String: Any]])
            #expect(listed.map { $0["content_type"] as? String } == ["image/png", "image/jpeg"])
            #expect(listed.map { $0["bytes"] as? Int } == [png.count, jpeg.count])

            let id = try #require(listed.first?["id"] as? Int)
            let served = try await browser.get("/attachments/\(id)")
            #expect(served.status == 200)
            #expect(served.headers.first(name: "content-type") == "image/png")
            #expect(served.headers.first(name: "x-content-type-options") == "nosniff")
            #expect(served.headers.first(name: "content-disposition")?.hasPrefix("inline; filename=\"a.png\"") == true)
            #expect(served.headers.first(name: "cache-control")?.contains("private") == true)
            #expect(served.bytes == png)
            let etag = try #require(served.headers.first(name: "etag"))
            #expect(try await browser.get("/attachments/\(id)", headers: [("If-None-Match", etag)]).status == 304)

            let upstream = try #require(try await server.mockLastRequest()).replacingOccurrences(of: "\\/", with: "/")
            #expect(upstream.contains("\"image_url\""))
            #expect(upstream.contains("data:image/png;base64,\(Data(png).base64EncodedString())"))
            #expect(upstream.contains("data:image/jpeg;base64,\(Data(jpeg).base64EncodedString())"))

            let page = try await browser.get("/c/\(conversation)").body
            #expect(page.contains("<img src=\"/attachments/\(id)\" alt=\"a.png\" width=\"64\" height=\"48\""))
        }
    }

    @Test("an image wider than the vendor takes reaches it scaled down to 2,048 pixels, and is served as uploaded")
    func oversizedImageIsFitted() async throws {
        try await Self.withVisionServer { server in
            var (browser, api, conversation) = try await Self.start(server)
            let wide = try Fixtures.image("wide.png")
            let sent = try await browser.postMultipart(
                "/c/\(conversation)/messages",
                fields: [("content", "How wide?"), ("model", "mock-vision")],
                files: [("wide.png", "image/png", wide)])
            #expect(sent.status == 202, "\(sent.body)")
            try await Self.waitForReply(api, conversation)
            #expect(try await api.messages(conversation).last?["status"] as? String == "complete")

            let upstream = try #require(try await server.mockLastRequest()).replacingOccurrences(of: "\\/", with: "/")
            let prefix = "data:image/png;base64,"
            let start = try #require(upstream.range(of: prefix)).upperBound
            let encoded = upstream[start...].prefix { $0 != "\"" }
            let fitted = try #require(Data(base64Encoded: String(encoded)))
            #expect(try ImageInspector.inspect([UInt8](fitted)) == ImageFacts(format: .png, width: 2048, height: 33))

            let question = try #require(try await api.messages(conversation).first)
            let id = try #require((question["attachments"] as? [[String: Any]])?.first?["id"] as? Int)
            #expect(try await browser.get("/attachments/\(id)").bytes == wide)
        }
    }

    @Test("an image model draws the picture: stored as the reply's image, shown in it, charged per image, shared")
    func imageGeneration() async throws {
        try await Self.withVisionServer { server in
            var (browser, api, conversation) = try await Self.start(server)
            let sent = try await api.send(conversation, "a red fox in the snow", model: "mock-draw")
            #expect(sent.status == 202)
            try await Self.waitForReply(api, conversation)
            let reply = try #require(try await api.messages(conversation).last)
            #expect(reply["status"] as? String == "complete")
            let attachments = try #require(reply["attachments"] as? [[String: Any]])
            let id = try #require(attachments.first?["id"] as? Int)
            #expect(attachments.first?["content_type"] as? String == "image/png")
            #expect((reply["content"] as? String)?.hasPrefix("![Generated image](/attachments/\(id))") == true)
            let usage = try #require(reply["usage"] as? [String: Any])
            #expect(usage["completion_tokens"] as? Int == 1)
            #expect(usage["cost_usd"] as? Double == 0.04)
            #expect(try await browser.get("/attachments/\(id)").bytes == (try Fixtures.image("gradient.png")))
            let upstream = try #require(try await server.mockLastRequest())
            #expect(upstream.contains("\"prompt\":\"a red fox in the snow\""))

            let page = try await browser.get("/c/\(conversation)").body
            #expect(page.contains("<img src=\"/attachments/\(id)\" alt=\"Generated image\""))
            let shared = try await browser.post(
                "/c/\(conversation)/share", form: ["author": "anonymous", "expires": "never"],
                headers: [("Accept", "application/json")])
            let url = try #require(try shared.json()["url"] as? String)
            let token = String(url.split(separator: "/").last ?? "")
            var visitor = server.browser()
            #expect(try await visitor.get(url).body.contains("<img src=\"/attachments/\(id)?share=\(token)\""))
            #expect(try await visitor.get("/attachments/\(id)?share=\(token)").status == 200)

            #expect(try await api.send(conversation, "again", model: "mock-draw-broken").status == 202)
            try await Self.waitForReply(api, conversation)
            let failed = try #require(try await api.messages(conversation).last)
            #expect(failed["status"] as? String == "error")
            #expect((failed["attachments"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("a hostile file name is shown escaped on the page and cannot break the served headers")
    func hostileFileName() async throws {
        try await Self.withVisionServer { server in
            var (browser, api, conversation) = try await Self.start(server)
            let name = #"<img src=x onerror=alert(1)>'x.png"#
            _ = try await browser.postMultipart(
                "/c/\(conversation)/messages", fields: [("content", "named")],
                files: [(name, "image/png", try Fixtures.image("gradient.png"))])
            try await Self.waitForReply(api, conversation)
            let page = try await browser.get("/c/\(conversation)").body
            #expect(!page.contains("<img src=x onerror"))
            #expect(page.contains("alt=\"&lt;img src=x onerror=alert(1)&gt;&#39;x.png\""))
            let id = try #require(
                (try await api.messages(conversation).first?["attachments"] as? [[String: Any]])?.first?["id"] as? Int)
            let served = try await browser.get("/attachments/\(id)")
            #expect(
                served.headers.first(name: "content-disposition")?.hasPrefix(
                    "inline; filename=\"<img src=x onerror=alert(1)>'x.png\"") == true)
            #expect(served.headers.first(name: "content-type") == "image/png")
        }
    }

    @Test("a plain form (no JavaScript) with images gets 303 back to the conversation, with the images stored")
    func plainForm() async throws {
        try await Self.withVisionServer { server in
            var (browser, api, conversation) = try await Self.start(server)
            let sent = try await browser.postMultipart(
                "/c/\(conversation)/messages", fields: [("content", "look"), ("model", "")],
                files: [("g.gif", "image/gif", try Fixtures.image("gradient.gif"))], json: false)
            #expect(sent.status == 303)
            #expect(sent.location == "/c/\(conversation)")
            try await Self.waitForReply(api, conversation)
            let attachments = try await api.messages(conversation).first?["attachments"] as? [[String: Any]]
            #expect(attachments?.first?["content_type"] as? String == "image/gif")
        }
    }

    @Test("bad uploads get 400, 413, 415 or 422 and store nothing", arguments: BadUpload.allCases)
    func badUploads(_ upload: BadUpload) async throws {
        try await Self.withVisionServer { server in
            var (browser, api, conversation) = try await Self.start(server)
            let response: TestResponse
            if upload == .brokenBoundary {
                var body = MultipartBody()
                body.fields = [("csrf_token", browser.csrfToken ?? ""), ("content", "hello")]
                let bytes = String(buffer: body.bytes).replacingOccurrences(of: body.boundary, with: "not-the-boundary")
                response = try await browser.send(
                    .POST, "/c/\(conversation)/messages",
                    headers: [("Content-Type", body.contentType), ("Accept", "application/json")],
                    body: bytes)
            } else {
                response = try await browser.postMultipart(
                    "/c/\(conversation)/messages",
                    fields: [("content", "hello"), ("model", upload.model)],
                    files: try upload.files())
            }
            #expect(response.status == upload.expectedStatus, "\(upload): \(response.body.prefix(300))")
            #expect(try await api.messages(conversation).isEmpty, "\(upload) stored a message")
        }
    }

    @Test(
        "an upload far over the limit is refused with 413 without the server holding the whole body (a real parley serve, its own memory measured)"
    )
    func oversizedStream() async throws {
        let folder = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let config = folder + "/models.json"
        try Data(
            #"{"models": [{"id": "mock-vision", "provider": "openai", "upstream_id": "mock-fast", "vision": true}]}"#
                .utf8
        )
        .write(to: URL(fileURLWithPath: config))
        try await ProcessHarness.with(environment: ["PARLEY_MAX_UPLOAD_MB": "1", "PARLEY_CONFIG": config]) { harness in
            let (process, server) = try await harness.start()
            var (browser, api, conversation) = try await Self.start(server)
            let before = try #require(ProcessMemory.residentKilobytes(of: process.processIdentifier))
            var body = MultipartBody()
            body.fields = [("csrf_token", browser.csrfToken ?? ""), ("content", "huge")]
            let head =
                "--\(body.boundary)\r\nContent-Disposition: form-data; name=\"csrf_token\"\r\n\r\n\(browser.csrfToken ?? "")\r\n"
                + "--\(body.boundary)\r\nContent-Disposition: form-data; name=\"image\"; filename=\"big.png\"\r\n"
                + "Content-Type: image/png\r\n\r\n"
            // 64 MB of image bytes against a 1 MB limit, streamed in 1 MB chunks with no Content-Length: only the
            // per-image limit can stop it.
            let chunk = ByteBuffer(repeating: 0x89, count: 1 << 20)
            let chunks = AsyncStream<ByteBuffer> { continuation in
                continuation.yield(ByteBuffer(string: head))
                for _ in 0..<64 { continuation.yield(chunk) }
                continuation.finish()
            }
            var request = HTTPClientRequest(url: server.baseURL + "/c/\(conversation)/messages")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: body.contentType)
            request.headers.add(name: "Accept", value: "application/json")
            request.headers.add(
                name: "Cookie", value: browser.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
            request.body = .stream(chunks, length: .unknown)
            // The server answers 413 as soon as the image passes the limit, and discards the rest without keeping it.
            #expect(try await server.client.execute(request, timeout: .seconds(60)).status.code == 413)
            let after = try #require(ProcessMemory.residentKilobytes(of: process.processIdentifier))
            #expect(
                after - before < 16 << 10, "the server's memory grew by \(after - before) KB, about the body's size")
            #expect(try await api.messages(conversation).isEmpty)
            let small = try await browser.postMultipart(
                "/c/\(conversation)/messages", fields: [("content", "still works")],
                files: [("ok.png", "image/png", try Fixtures.image("gradient.png"))])
            #expect(small.status == 202)
        }
    }

    @Test("a multipart send without the CSRF field before the files is refused with 403 and stores nothing")
    func csrf() async throws {
        try await Self.withVisionServer { server in
            var (browser, api, conversation) = try await Self.start(server)
            let png = try Fixtures.image("gradient.png")
            let missing = try await browser.postMultipart(
                "/c/\(conversation)/messages", fields: [("content", "x")],
                files: [("a.png", "image/png", png)], csrf: false)
            #expect(missing.status == 403)
            let wrong = try await browser.postMultipart(
                "/c/\(conversation)/messages",
                fields: [("csrf_token", "forged"), ("content", "x")],
                files: [("a.png", "image/png", png)], csrf: false)
            #expect(wrong.status == 403)
            #expect(try await api.messages(conversation).isEmpty)
            // Multipart posts to routes that do not read uploads never skip the check.
            var body = MultipartBody()
            body.fields = [("csrf_token", browser.csrfToken ?? ""), ("title", "renamed")]
            let rename = try await browser.send(
                .POST, "/c/\(conversation)/rename", headers: [("Content-Type", body.contentType)],
                bytes: body.bytes)
            #expect(rename.status == 403)
        }
    }

    @Test("another user's or an anonymous visitor's request for an image gets 404 or the sign-in page")
    func ownership() async throws {
        try await Self.withVisionServer { server in
            var (browser, api, conversation) = try await Self.start(server)
            _ = try await browser.postMultipart(
                "/c/\(conversation)/messages", fields: [("content", "mine")],
                files: [("a.png", "image/png", try Fixtures.image("gradient.png"))])
            try await Self.waitForReply(api, conversation)
            let id = try #require(
                (try await api.messages(conversation).first?["attachments"] as? [[String: Any]])?.first?["id"] as? Int)
            var other = server.browser()
            _ = try await other.signUp("someone-else@example.com")
            #expect(try await other.get("/attachments/\(id)").status == 404)
            #expect(try await other.get("/attachments/\(id)?share=guessed").status == 404)
            var anonymous = server.browser()
            let refused = try await anonymous.get("/attachments/\(id)")
            #expect(refused.status == 303 || refused.status == 401)
            #expect(try await browser.get("/attachments/\(id)").status == 200)
        }
    }

    @Test("a share link shows its images to anyone until revoked; deleting the conversation deletes its images")
    func sharesAndDeletion() async throws {
        try await Self.withVisionServer { server in
            var (browser, api, conversation) = try await Self.start(server)
            _ = try await browser.postMultipart(
                "/c/\(conversation)/messages", fields: [("content", "shared picture")],
                files: [("a.png", "image/png", try Fixtures.image("gradient.png"))])
            try await Self.waitForReply(api, conversation)
            let id = try #require(
                (try await api.messages(conversation).first?["attachments"] as? [[String: Any]])?.first?["id"] as? Int)
            let shared = try await browser.post(
                "/c/\(conversation)/share", form: ["author": "anonymous", "expires": "never"],
                headers: [("Accept", "application/json")])
            let url = try #require(try shared.json()["url"] as? String)
            let token = String(url.split(separator: "/").last ?? "")
            var visitor = server.browser()
            let page = try await visitor.get(url).body
            #expect(page.contains("/attachments/\(id)?share=\(token)"))
            #expect(try await visitor.get("/attachments/\(id)?share=\(token)").status == 200)

            var forker = server.browser()
            _ = try await forker.signUp("forker@example.com")
            let fork = try await forker.post("/s/\(token)/fork")
            let forked = try #require(fork.location.flatMap { Int64($0.split(separator: "/").last ?? "") })
            let forkerAPI = try await APIClient.signIn(server, email: "forker@example.com")
            let copied = try #require(
                (try await forkerAPI.messages(forked).first?["attachments"] as? [[String: Any]])?.first?["id"] as? Int)
            #expect(copied != id)
            #expect(try await forker.get("/attachments/\(copied)").status == 200)

            _ = try await browser.post("/s/\(token)/revoke")
            #expect(try await visitor.get("/attachments/\(id)?share=\(token)").status == 404)

            #expect(try await browser.post("/c/\(conversation)/delete").status == 303)
            #expect(try await browser.get("/attachments/\(id)").status == 404)
            let database = try DatabaseQueue(path: server.dataDirectory + "/parley.sqlite")
            let left = try await database.read { [conversation] db in
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM attachments WHERE conversation_id = ?", arguments: [conversation])
            }
            #expect(left == 0)
        }
    }
}

/// The bad uploads of the upload contract, each with the status it must get.
enum BadUpload: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case textNamedPNG, truncatedPNG, svg, fiveImages, brokenBoundary, dimensionBomb, nonVisionModel

    var testDescription: String { rawValue }

    /// The model the message asks for.
    var model: String { self == .nonVisionModel ? "mock-blind" : "mock-vision" }

    var expectedStatus: Int {
        switch self {
        case .textNamedPNG, .truncatedPNG, .svg: 415
        case .fiveImages, .dimensionBomb, .nonVisionModel: 422
        case .brokenBoundary: 400
        }
    }

    /// The files sent.
    func files() throws -> [(name: String, type: String, bytes: [UInt8])] {
        let png = try Fixtures.image("gradient.png")
        switch self {
        case .textNamedPNG: return [("notes.png", "image/png", Array("just some text, honestly".utf8))]
        case .truncatedPNG: return [("cut.png", "image/png", Array(png.prefix(png.count - 20)))]
        case .svg:
            return [
                (
                    "x.svg", "image/svg+xml",
                    Array("<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>".utf8)
                )
            ]
        case .fiveImages: return Array(repeating: ("a.png", "image/png", png), count: 5)
        case .dimensionBomb:
            var bomb = png
            bomb.replaceSubrange(16..<24, with: [0, 0, 0x4E, 0x20, 0, 0, 0x4E, 0x20])  // IHDR says 20,000 × 20,000
            return [("bomb.png", "image/png", bomb)]
        case .nonVisionModel, .brokenBoundary: return [("a.png", "image/png", png)]
        }
    }
}
