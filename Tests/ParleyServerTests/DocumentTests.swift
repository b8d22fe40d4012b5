import AsyncHTTPClient
import Foundation
import GRDB
import NIOCore
import ParleyCore
import ParleyMarkdown
import ParleyServer
import Testing

/// Documents end to end: uploaded to a conversation and read off the request path, sent with a message (by id, or as
/// files of the multipart form), answered from with numbered sources the reply cites, served to their owner only, and
/// every bad upload refused with its status while stored data stays as it was.
@Suite("Documents", .serialized)
struct DocumentTests {
    /// A server whose mock upstream offers `mock-cite` twice: with a window the fixture's ten pages fit whole in, and
    /// with one so small that only the best chunks do.
    static func withDocumentServer(_ body: (TestServer) async throws -> Void) async throws {
        try await withTestServer(
            configure: { settings in
                settings.signup = .open
                settings.maxDocumentBytes = 1 << 20
                let path = settings.dataDirectory + "/models.json"
                let config = """
                    {"providers": [{"id": "mock", "kind": "openai", "base_url": "\(settings.environment["OPENAI_BASE_URL"] ?? "")",
                                    "api_key_env": "OPENAI_API_KEY"}],
                     "models": [{"id": "cite-wide", "provider": "mock", "upstream_id": "mock-cite", "context_window": 100000},
                                {"id": "cite-narrow", "provider": "mock", "upstream_id": "mock-cite", "context_window": 600}]}
                    """
                try Data(config.utf8).write(to: URL(fileURLWithPath: path))
                settings.providerConfigPath = path
            }, body)
    }

    /// The ten-page report whose page 7 alone holds the launch code.
    static func report() throws -> [UInt8] {
        [UInt8](
            try Data(
                contentsOf: URL(
                    fileURLWithPath: TestServer.repositoryRoot + "/Tests/Fixtures/documents/field-report.pdf")))
    }

    /// Uploads files to the conversation's composer as the page's script does.
    static func upload(
        _ browser: inout Browser, _ conversation: Int64, _ files: [(name: String, type: String, bytes: [UInt8])]
    ) async throws -> TestResponse {
        try await browser.postMultipart(
            "/c/\(conversation)/documents", fields: [], files: files, fileField: "document")
    }

    /// Waits, at most 10 s, until the document is no longer being read; returns it.
    static func read(_ api: APIClient, _ id: Int) async throws -> [String: Any] {
        var document: [String: Any] = [:]
        _ = try await poll {
            document = try await api.request(.GET, "/api/documents/\(id)").json()
            return document["status"] as? String != "reading"
        }
        return document
    }

    @Test("a PDF is read in the background, sent by id, and the reply cites the page that answers (#page=7)")
    func answersFromThePage() async throws {
        try await Self.withDocumentServer { server in
            var (browser, api) = try await server.signUp("reader@example.com")
            let conversation = try await api.createConversation(model: "cite-narrow")
            let uploaded = try await Self.upload(
                &browser, conversation, [("field-report.pdf", "application/pdf", try Self.report())])
            #expect(uploaded.status == 201, "\(uploaded.body)")
            let listed = try #require(try uploaded.json()["documents"] as? [[String: Any]])
            #expect(listed.first?["status"] as? String == "reading")
            let id = try #require(listed.first?["id"] as? Int)
            let document = try await Self.read(api, id)
            #expect(document["status"] as? String == "ready" && document["pages"] as? Int == 10)

            let events = try await api.events(conversation)
            let sent = try await api.request(
                .POST, "/api/conversations/\(conversation)/messages",
                json: ["content": "What is the launch code?", "document_ids": [id]])
            #expect(sent.status == 202, "\(sent.body)")
            let reply = try #require(
                try await api.lastMessage(of: conversation) { $0?["status"] as? String == "complete" })
            let upstream = try #require(try await server.mockLastRequest())
            #expect(upstream.contains("zebra-quartz") && upstream.contains("page=\\\"7\\\""))
            #expect(!upstream.contains("survey area 3."))
            let sources = try #require(reply["sources"] as? [[String: Any]])
            #expect(sources.map { $0["url"] as? String } == ["/documents/\(id)#page=7"])
            #expect(reply["content"] as? String == "From the documents: [1].")
            #expect((reply["document_tokens"] as? Int ?? 0) > 0)
            let question = try #require(try await api.messages(conversation).first)
            #expect((question["documents"] as? [[String: Any]])?.map { $0["id"] as? Int } == [id])

            let original = try await browser.get("/documents/\(id)")
            let report = try Self.report()
            #expect(original.status == 200 && original.bytes == report)
            #expect(original.headers.first(name: "content-type") == "application/pdf")
            let done = try #require(try await events.collect { event, _ in event.name == "done" }.last)
            #expect(
                (done.json["html"] as? String)?.contains(
                    "[\(CitationLinks.link(1, to: "/documents/\(id)#page=7"))]") == true, "\(done.data)")
            #expect((done.json["sources"] as? [[String: Any]])?.first?["page"] as? Int == 7)
            let tokens = try #require(reply["document_tokens"] as? Int)
            let dashboard = try await browser.get("/admin").body
            #expect(dashboard.contains("<dt>Input tokens from documents</dt><dd>\(tokens)</dd>"), "\(dashboard)")
        }
    }

    @Test("a conversation's collections and its assistant's are drawn on, and no longer once taken off")
    func knowledgeCollections() async throws {
        try await Self.withDocumentServer { server in
            var (browser, api) = try await server.signUp("librarian@example.com")
            let collection = try #require(
                try await api.request(.POST, "/api/collections", json: ["name": "Reports"]).json()["id"] as? Int)
            let uploaded = try await browser.postMultipart(
                "/api/collections/\(collection)/documents", fields: [],
                files: [("field-report.pdf", "application/pdf", try Self.report())], fileField: "document")
            let id = try #require((try uploaded.json()["data"] as? [[String: Any]])?.first?["id"] as? Int)
            _ = try await Self.read(api, id)

            /// Asks in `conversation` and returns the reply's source names.
            func sources(_ conversation: Int64) async throws -> [String] {
                _ = try await api.send(conversation, "What is the launch code?")
                let reply = try #require(
                    try await api.lastMessage(of: conversation) {
                        $0?["role"] as? String == "assistant" && $0?["status"] as? String != "streaming"
                    })
                return (reply["sources"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            }
            let conversation = try await api.createConversation(model: "cite-narrow")
            #expect(try await sources(conversation).isEmpty)
            let attached = try await api.request(
                .PATCH, "/api/conversations/\(conversation)", json: ["collection_ids": [collection]])
            #expect(attached.status == 200, "\(attached.body)")
            #expect(try await sources(conversation) == ["field-report.pdf"])
            _ = try await api.request(.PATCH, "/api/conversations/\(conversation)", json: ["collection_ids": []])
            #expect(try await sources(conversation).isEmpty)

            let assistant = try #require(
                try await api.request(
                    .POST, "/api/assistants",
                    json: ["name": "Archivist", "model": "cite-narrow", "collection_ids": [collection]]
                ).json()["id"] as? Int)
            let started = try #require(
                try await api.request(.POST, "/api/conversations", json: ["assistant_id": assistant]).json()["id"]
                    as? Int)
            #expect(try await sources(Int64(started)) == ["field-report.pdf"])
        }
    }

    @Test("documents that fit the window are sent whole, a source a page")
    func wholeWhenTheyFit() async throws {
        try await Self.withDocumentServer { server in
            var (browser, api) = try await server.signUp("whole@example.com")
            let conversation = try await api.createConversation(model: "cite-wide")
            let uploaded = try await Self.upload(
                &browser, conversation, [("field-report.pdf", "application/pdf", try Self.report())])
            let id = try #require((try uploaded.json()["documents"] as? [[String: Any]])?.first?["id"] as? Int)
            _ = try await Self.read(api, id)
            _ = try await api.request(
                .POST, "/api/conversations/\(conversation)/messages",
                json: ["content": "Summarise the report.", "document_ids": [id]])
            let reply = try #require(
                try await api.lastMessage(of: conversation) { $0?["status"] as? String == "complete" })
            #expect((reply["sources"] as? [[String: Any]])?.compactMap { $0["page"] as? Int } == Array(1...10))
        }
    }

    @Test("without script, documents sent as files of the message's form are read first; one unreadable refuses all")
    func filesWithTheForm() async throws {
        try await Self.withDocumentServer { server in
            var (browser, api) = try await server.signUp("form@example.com")
            let conversation = try await api.createConversation(model: "cite-wide")
            var body = MultipartBody()
            body.fields = [("csrf_token", browser.csrfToken ?? ""), ("content", "What is in the notes?")]
            body.files = [
                (
                    field: "document", name: "notes.md", type: "text/markdown",
                    bytes: Array("# Notes\n\nThe key is 42.".utf8)
                )
            ]
            let sent = try await browser.send(
                .POST, "/c/\(conversation)/messages", headers: [("Content-Type", body.contentType)], bytes: body.bytes)
            #expect(sent.status == 303, "\(sent.body)")
            let reply = try #require(
                try await api.lastMessage(of: conversation) { $0?["status"] as? String == "complete" })
            #expect((reply["sources"] as? [[String: Any]])?.map { $0["name"] as? String } == ["notes.md"])

            let before = try await api.messages(conversation).count
            body.files.append((field: "document", name: "empty.pdf", type: "application/pdf", bytes: Self.blankPDF))
            let refused = try await browser.send(
                .POST, "/c/\(conversation)/messages",
                headers: [("Content-Type", body.contentType), ("Accept", "application/json")], bytes: body.bytes)
            #expect(refused.status == 422 && refused.body.contains("document_unreadable"), "\(refused.body)")
            #expect(try await api.messages(conversation).count == before)
            #expect(try await Self.documentCount(server) == 1)
        }
    }

    /// The documents stored, read from the database file.
    static func documentCount(_ server: TestServer) async throws -> Int {
        let database = try DatabaseQueue(path: server.dataDirectory + "/parley.sqlite")
        return try await database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM documents") ?? -1 }
    }

    /// A PDF with one page and no text on it.
    static let blankPDF = Array(
        """
        %PDF-1.4
        1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj
        2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj
        3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >> endobj
        trailer << /Root 1 0 R >>
        %%EOF

        """.utf8)

    @Test("bad uploads get their status and store nothing; bad ids get 422 and send nothing")
    func refusals() async throws {
        try await Self.withDocumentServer { server in
            var (browser, api) = try await server.signUp("careful@example.com")
            let conversation = try await api.createConversation(model: "cite-wide")
            let cases: [(String, [(name: String, type: String, bytes: [UInt8])], Int, String)] = [
                (
                    "an executable", [("tool.exe", "application/octet-stream", [0x4D, 0x5A])], 415,
                    "unsupported_document"
                ),
                (
                    "a .pdf that is text", [("fake.pdf", "application/pdf", Array("hello".utf8))], 415,
                    "document_type_mismatch"
                ),
                (
                    "a name with a control character", [("bad\u{7}.txt", "text/plain", Array("x".utf8))], 422,
                    "invalid_document_name"
                ),
                (
                    "an oversized file", [("big.txt", "text/plain", [UInt8](repeating: 65, count: (1 << 20) + 1))], 413,
                    "upload_too_large"
                ),
                (
                    "eleven files", Array(repeating: ("a.txt", "text/plain", Array("a".utf8)), count: 11), 422,
                    "too_many_documents"
                ),
            ]
            for (name, files, status, code) in cases {
                let response = try await Self.upload(&browser, conversation, files)
                #expect(response.status == status && response.body.contains(code), "\(name): \(response.body)")
            }
            #expect(try await Self.documentCount(server) == 0)
            let noCSRF = try await browser.postMultipart(
                "/c/\(conversation)/documents", fields: [], files: [("a.txt", "text/plain", Array("a".utf8))],
                fileField: "document", csrf: false)
            #expect(noCSRF.status == 403)

            var (intruder, intruderAPI) = try await server.signUp("intruder@example.com")
            let foreign = try await Self.upload(
                &intruder, conversation, [("a.txt", "text/plain", Array("a".utf8))])
            #expect(foreign.status == 404)
            let uploaded = try await Self.upload(&browser, conversation, [("a.txt", "text/plain", Array("a".utf8))])
            let id = try #require((try uploaded.json()["documents"] as? [[String: Any]])?.first?["id"] as? Int)
            _ = try await Self.read(api, id)
            #expect(try await intruderAPI.request(.GET, "/api/documents/\(id)").status == 404)
            #expect(try await intruder.get("/documents/\(id)").status == 404)
            #expect(try await intruderAPI.request(.DELETE, "/api/documents/\(id)").status == 404)
            let other = try await intruderAPI.createConversation(model: "cite-wide")
            let stolen = try await intruderAPI.request(
                .POST, "/api/conversations/\(other)/messages", json: ["content": "hi", "document_ids": [id]])
            #expect(stolen.status == 422 && stolen.body.contains("document_not_ready"), "\(stolen.body)")
            #expect(try await intruderAPI.messages(other).isEmpty)

            var malformed = MultipartBody()
            malformed.fields = [
                ("csrf_token", browser.csrfToken ?? ""), ("content", "hi"), ("document_id", "../../1"),
            ]
            let badID = try await browser.send(
                .POST, "/c/\(conversation)/messages",
                headers: [("Content-Type", malformed.contentType), ("Accept", "application/json")],
                bytes: malformed.bytes)
            #expect(badID.status == 400, "\(badID.body)")
            let badJSON = try await api.request(
                .POST, "/api/conversations/\(conversation)/messages", json: ["content": "hi", "document_ids": ["x"]])
            #expect(badJSON.status == 400, "\(badJSON.body)")
            let repeated = try await api.request(
                .POST, "/api/conversations/\(conversation)/messages",
                json: ["content": "hi", "document_ids": [id, id]])
            #expect(repeated.status == 422 && repeated.body.contains("too_many_documents"))
            #expect(try await api.messages(conversation).isEmpty)
            #expect(try await api.request(.DELETE, "/api/documents/\(id)").status == 204)
            #expect(try await Self.documentCount(server) == 0)
        }
    }

    @Test("a PDF without text is refused when read, saying why, and cannot be sent")
    func unreadable() async throws {
        try await Self.withDocumentServer { server in
            var (browser, api) = try await server.signUp("locked@example.com")
            let conversation = try await api.createConversation(model: "cite-wide")
            let uploaded = try await Self.upload(
                &browser, conversation, [("blank.pdf", "application/pdf", Self.blankPDF)])
            let id = try #require((try uploaded.json()["documents"] as? [[String: Any]])?.first?["id"] as? Int)
            let document = try await Self.read(api, id)
            #expect(document["status"] as? String == "failed")
            #expect((document["failure"] as? String)?.contains("OCR") == true)
            let sent = try await api.request(
                .POST, "/api/conversations/\(conversation)/messages", json: ["content": "hi", "document_ids": [id]])
            #expect(sent.status == 422 && sent.body.contains("document_unreadable"), "\(sent.body)")
        }
    }
}
