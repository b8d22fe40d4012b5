import Foundation
import GRDB
import NIOHTTP1
import ParleyStore
import Testing

@testable import ParleyCore
@testable import ParleyServer

/// Knowledge collections: made, renamed, listed and deleted by their owner alone (anyone else gets 404), their
/// documents uploaded and read, deleted with them; attached to conversations and assistants only by their owner (422
/// otherwise); bad input refused with nothing changed; the pages do all of it without script.
@Suite("Knowledge collections")
struct KnowledgeTests {
    /// A text document's bytes.
    static let notes = Array("The launch code is AZURE-PELICAN.\n\nThe second paragraph says nothing more.".utf8)

    /// Makes a collection through the API; returns its JSON.
    static func make(_ api: APIClient, name: String = "Handbook", description: String = "") async throws
        -> [String: Any]
    {
        let made = try await api.request(.POST, "/api/collections", json: ["name": name, "description": description])
        #expect(made.status == 201, "\(made.body)")
        return try made.json()
    }

    /// Uploads `files` (name and bytes) into a collection through the API, as multipart `document` fields.
    static func upload(
        _ browser: inout Browser, _ api: APIClient, _ id: Int, _ files: [(String, [UInt8])]
    ) async throws -> TestResponse {
        var body = MultipartBody()
        body.files = files.map { (field: "document", name: $0.0, type: "application/octet-stream", bytes: $0.1) }
        return try await browser.send(
            .POST, "/api/collections/\(id)/documents",
            headers: [("Content-Type", body.contentType), ("Authorization", "Bearer \(api.token ?? "")")],
            bytes: body.bytes)
    }

    /// The collection's documents through the API.
    static func documents(_ api: APIClient, _ id: Int) async throws -> [[String: Any]] {
        try await api.request(.GET, "/api/collections/\(id)/documents").json()["data"] as? [[String: Any]] ?? []
    }

    /// The user's stored bytes, read from the database.
    static func storedBytes(_ server: TestServer, email: String) async throws -> Int {
        let database = try ParleyDatabase(directory: server.dataDirectory)
        return try await database.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT stored_bytes FROM users WHERE email = ?", arguments: [email]) ?? -1
        }
    }

    @Test("the API makes, lists, reads, changes and deletes collections; bad input is refused with nothing changed")
    func collectionsThroughTheAPI() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            let (_, api) = try await server.signUp("owner@example.com")
            let made = try await Self.make(api, name: "  Handbook  ", description: "How we work")
            let id = try #require(made["id"] as? Int)
            #expect(made["name"] as? String == "Handbook" && made["document_count"] as? Int == 0)
            _ = try await Self.make(api, name: "archive")
            let names = try await api.request(.GET, "/api/collections").json()["data"] as? [[String: Any]] ?? []
            #expect(names.compactMap { $0["name"] as? String } == ["archive", "Handbook"])

            let renamed = try await api.request(.PATCH, "/api/collections/\(id)", json: ["name": "Guide"])
            #expect(try renamed.status == 200 && renamed.json()["description"] as? String == "How we work")
            for (body, status) in [
                (["name": ""], 422), (["name": "   "], 422), (["name": String(repeating: "n", count: 101)], 422),
                (["description": String(repeating: "d", count: 1_001)], 422), (["name": 7], 400),
            ] as [([String: Any], Int)] {
                let refused = try await api.request(.PATCH, "/api/collections/\(id)", json: body)
                #expect(refused.status == status, "\(body): \(refused.body)")
                let created = try await api.request(.POST, "/api/collections", json: body)
                #expect(created.status == status, "POST \(body): \(created.body)")
            }
            #expect(try await api.request(.POST, "/api/collections", json: [:]).status == 422)
            let kept = try await api.request(.GET, "/api/collections/\(id)").json()
            #expect(kept["name"] as? String == "Guide" && kept["description"] as? String == "How we work")
            #expect((try await api.request(.GET, "/api/collections").json()["data"] as? [Any])?.count == 2)
            for path in ["/api/collections/0", "/api/collections/abc", "/api/collections/-1", "/api/collections/99"] {
                #expect(try await api.request(.GET, path).status == 404, "\(path)")
            }

            #expect(try await api.request(.DELETE, "/api/collections/\(id)").status == 204)
            #expect(try await api.request(.GET, "/api/collections/\(id)").status == 404)
            #expect(try await api.request(.DELETE, "/api/collections/\(id)").status == 404)
        }
    }

    @Test("another user's collection is 404 everywhere, and nothing they try changes it")
    func anotherUsersCollectionIsNotFound() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var (browser, owner) = try await server.signUp("owner@example.com")
            var (strangerBrowser, stranger) = try await server.signUp("stranger@example.com")
            let id = try #require(try await Self.make(owner, name: "Private")["id"] as? Int)
            let uploaded = try await Self.upload(&browser, owner, id, [("notes.txt", Self.notes)])
            let documentID = try #require((try uploaded.json()["data"] as? [[String: Any]])?.first?["id"] as? Int)
            for (method, path, body) in [
                (HTTPMethod.GET, "/api/collections/\(id)", nil), (.PATCH, "/api/collections/\(id)", ["name": "Mine"]),
                (.DELETE, "/api/collections/\(id)", nil), (.GET, "/api/collections/\(id)/documents", nil),
                (.DELETE, "/api/collections/\(id)/documents/\(documentID)", nil),
            ] as [(HTTPMethod, String, [String: Any]?)] {
                #expect(try await stranger.request(method, path, json: body).status == 404, "\(method) \(path)")
            }
            let theirUpload = try await Self.upload(&strangerBrowser, stranger, id, [("x.txt", Self.notes)])
            #expect(theirUpload.status == 404)
            #expect(try await strangerBrowser.get("/knowledge/\(id)").status == 404)
            for path in [
                "/knowledge/\(id)", "/knowledge/\(id)/delete", "/knowledge/\(id)/documents/\(documentID)/delete",
            ] {
                #expect(try await strangerBrowser.post(path, form: ["name": "Mine"]).status == 404, "\(path)")
            }
            // The stranger's own collection id cannot reach the owner's document either.
            let theirs = try #require(try await Self.make(stranger, name: "Theirs")["id"] as? Int)
            let crossed = try await stranger.request(.DELETE, "/api/collections/\(theirs)/documents/\(documentID)")
            #expect(crossed.status == 404)
            let ownersOtherCollection = try #require(try await Self.make(owner, name: "Other")["id"] as? Int)
            let misplaced = "/api/collections/\(ownersOtherCollection)/documents/\(documentID)"
            #expect(try await owner.request(.DELETE, misplaced).status == 404)

            let kept = try await owner.request(.GET, "/api/collections/\(id)").json()
            #expect(kept["name"] as? String == "Private" && kept["document_count"] as? Int == 1)
            #expect(try await Self.documents(owner, id).map { $0["name"] as? String } == ["notes.txt"])
        }
    }

    @Test(
        "a text document uploaded into a collection is read to ready; refused files are reported; deleting frees the bytes"
    )
    func uploadReadAndDelete() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var (browser, api) = try await server.signUp("owner@example.com")
            let id = try #require(try await Self.make(api)["id"] as? Int)
            let before = try await Self.storedBytes(server, email: "owner@example.com")

            let uploaded = try await Self.upload(&browser, api, id, [("notes.md", Self.notes)])
            #expect(uploaded.status == 201, "\(uploaded.body)")
            let document = try #require((try uploaded.json()["data"] as? [[String: Any]])?.first)
            #expect(document["name"] as? String == "notes.md" && document["collection_id"] as? Int == id)
            let documentID = try #require(document["id"] as? Int)
            #expect(
                try await poll { try await Self.documents(api, id).first?["status"] as? String == "ready" },
                "the document was not read")
            #expect(try await Self.storedBytes(server, email: "owner@example.com") >= before + Self.notes.count)

            // One bad file among good ones: the good one is kept, the bad one named with its status.
            let mixed = try await Self.upload(
                &browser, api, id, [("more.txt", Self.notes), ("program.exe", [0x4D, 0x5A, 0x90, 0x00, 0xFF, 0xFE])])
            #expect(mixed.status == 201, "\(mixed.body)")
            let refused = try #require((try mixed.json()["refused"] as? [[String: Any]])?.first)
            #expect(refused["name"] as? String == "program.exe" && refused["status"] as? Int == 415)
            // Only bad files: the first one's status, nothing stored.
            let bad = try await Self.upload(&browser, api, id, [("fake.pdf", Self.notes)])
            #expect(bad.status == 415, "\(bad.body)")
            var withoutFiles = MultipartBody()
            withoutFiles.fields = [("note", "no documents here")]
            let empty = try await browser.send(
                .POST, "/api/collections/\(id)/documents",
                headers: [("Content-Type", withoutFiles.contentType), ("Authorization", "Bearer \(api.token ?? "")")],
                bytes: withoutFiles.bytes)
            #expect(empty.status == 422 && empty.body.contains("no_documents"), "\(empty.body)")
            let json = try await api.request(.POST, "/api/collections/\(id)/documents", json: ["document": "x"])
            #expect(json.status == 415)
            #expect(try await Self.documents(api, id).compactMap { $0["name"] as? String } == ["notes.md", "more.txt"])
            #expect(try await api.request(.GET, "/api/collections/\(id)").json()["document_count"] as? Int == 2)

            #expect(try await api.request(.DELETE, "/api/collections/\(id)/documents/\(documentID)").status == 204)
            #expect(try await Self.documents(api, id).compactMap { $0["name"] as? String } == ["more.txt"])
            #expect(try await api.request(.DELETE, "/api/collections/\(id)").status == 204)
            #expect(try await poll { try await Self.storedBytes(server, email: "owner@example.com") == before })
            let database = try ParleyDatabase(directory: server.dataDirectory)
            #expect(try await database.pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM documents") } == 0)
            #expect(
                try await database.pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM document_chunks") } == 0)
        }
    }

    @Test(
        "the pages list, make, rename, upload into, show and delete collections without script; hostile names stay text"
    )
    func pagesWithoutScript() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var (browser, api) = try await server.signUp("owner@example.com")
            #expect(try await browser.get("/settings").body.contains("href=\"/knowledge\""))
            #expect(try await browser.get("/knowledge").status == 200)
            let hostile = HostileText(tag: "shelfname")
            let made = try await browser.post(
                "/knowledge", form: ["name": hostile.text, "description": HostileText(tag: "describe").text])
            #expect(made.status == 303)
            let path = try #require(made.location)
            let id = try #require(Int(path.replacingOccurrences(of: "/knowledge/", with: "")))
            InertHTML.expectShows(try await browser.get("/knowledge"), "knowledge list", [hostile.escaped])
            InertHTML.expectShows(
                try await browser.get(path), "collection page",
                [hostile.escaped, HostileText(tag: "describe").escaped, "name=\"document\" multiple"])

            let empty = try await browser.post("/knowledge", form: ["name": "  "])
            #expect(empty.status == 422 && empty.body.contains("1 to 100 characters"))
            let long = try await browser.post(path, form: ["name": String(repeating: "x", count: 101)])
            #expect(long.status == 422 && long.body.contains("role=\"alert\""))
            #expect((try await api.request(.GET, "/api/collections").json()["data"] as? [Any])?.count == 1)
            #expect(try await browser.post(path, form: ["name": "Policies", "description": "HR"]).location == path)

            let upload = try await browser.postMultipart(
                path + "/documents", fields: [], files: [(name: "leave.txt", type: "text/plain", bytes: Self.notes)],
                fileField: "document", json: false)
            #expect(upload.status == 303 && upload.location == path)
            let refused = try await browser.postMultipart(
                path + "/documents", fields: [], files: [(name: "virus.exe", type: "text/plain", bytes: [0x4D, 0x5A])],
                fileField: "document", json: false)
            #expect(refused.status == 415 && refused.body.contains("virus.exe"))
            InertHTML.expectInert(refused, "refused upload", status: 415)
            let withoutToken = try await browser.postMultipart(
                path + "/documents", fields: [], files: [(name: "sneaky.txt", type: "text/plain", bytes: Self.notes)],
                fileField: "document", json: false, csrf: false)
            #expect(withoutToken.status == 403)
            #expect(try await poll { try await browser.get(path).body.contains("<a href=\"/documents/") })
            let page = try await browser.get(path).body
            #expect(page.contains("Policies") && page.contains("leave.txt") && !page.contains("sneaky.txt"))
            let documentID = try #require(try await Self.documents(api, id).first?["id"] as? Int)

            #expect(try await browser.post("\(path)/documents/\(documentID)/delete").location == path)
            #expect(try await Self.documents(api, id).isEmpty)
            #expect(try await browser.post("\(path)/delete").location == "/knowledge")
            #expect(try await browser.get(path).status == 404)
        }
    }

    @Test("a conversation and an assistant get their owner's collections only, from the API and the forms")
    func attaching() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var (browser, api) = try await server.signUp("owner@example.com")
            let (_, stranger) = try await server.signUp("stranger@example.com")
            let mine = try #require(try await Self.make(api, name: "Mine")["id"] as? Int)
            let more = try #require(try await Self.make(api, name: "More")["id"] as? Int)
            let theirs = try #require(try await Self.make(stranger, name: "Theirs")["id"] as? Int)
            let knowledge = SQLiteKnowledgeStore(database: try ParleyDatabase(directory: server.dataDirectory))

            let conversation = try await api.createConversation()
            let attached = try await api.request(
                .PATCH, "/api/conversations/\(conversation)", json: ["collection_ids": [mine, more, mine]])
            #expect(attached.status == 200, "\(attached.body)")
            #expect(
                try await knowledge.collectionIDs(conversationID: conversation, userID: 1) == [
                    Int64(mine), Int64(more),
                ])
            let stolen = try await api.request(
                .PATCH, "/api/conversations/\(conversation)", json: ["collection_ids": [theirs], "title": "Changed"])
            #expect(stolen.status == 422 && stolen.body.contains("unknown_collection"))
            let strangers = try await stranger.request(
                .PATCH, "/api/conversations/\(conversation)", json: ["collection_ids": [theirs]])
            #expect(strangers.status == 404)
            #expect(
                try await knowledge.collectionIDs(conversationID: conversation, userID: 1) == [
                    Int64(mine), Int64(more),
                ])
            #expect(
                try await api.request(.GET, "/api/conversations/\(conversation)").json()["title"] as? String
                    != "Changed")
            let made = try await api.request(
                .POST, "/api/conversations", json: ["model": "mock-fast", "collection_ids": [theirs]])
            #expect(made.status == 422)

            // The settings form: ticked boxes replace the list; none ticked clears it.
            let page = try await browser.get("/c/\(conversation)").body
            #expect(page.contains("name=\"collection[]\" value=\"\(mine)\" checked"))
            #expect(page.contains("href=\"/knowledge\"") && !page.contains("Theirs"))
            let form = ["system_prompt": "", "collections_listed": "1", "collection[]": "\(more)"]
            #expect(try await browser.post("/c/\(conversation)/settings", form: form).status == 303)
            #expect(try await knowledge.collectionIDs(conversationID: conversation, userID: 1) == [Int64(more)])
            let refused = try await browser.post(
                "/c/\(conversation)/settings", form: ["collections_listed": "1", "collection[]": "\(theirs)"])
            #expect(refused.status == 422)
            let bad = try await browser.post(
                "/c/\(conversation)/settings", form: ["collections_listed": "1", "collection[]": "abc"])
            #expect(bad.status == 400)
            #expect(
                try await browser.post("/c/\(conversation)/settings", form: ["collections_listed": "1"]).status == 303)
            #expect(try await knowledge.collectionIDs(conversationID: conversation, userID: 1).isEmpty)

            // An assistant: the author's collections only.
            let assistant = try await api.request(
                .POST, "/api/assistants", json: ["name": "Helper", "model": "mock-fast", "collection_ids": [mine]])
            #expect(assistant.status == 201, "\(assistant.body)")
            #expect(try assistant.json()["collection_ids"] as? [Int] == [mine])
            let assistantID = try #require(try assistant.json()["id"] as? Int)
            let foreign = try await api.request(
                .PATCH, "/api/assistants/\(assistantID)", json: ["collection_ids": [theirs], "name": "Renamed"])
            #expect(foreign.status == 422 && foreign.body.contains("unknown_collection"))
            let intact = try await api.request(.GET, "/api/assistants/\(assistantID)").json()
            #expect(intact["collection_ids"] as? [Int] == [mine] && intact["name"] as? String == "Helper")
            #expect(
                try await api.request(.POST, "/api/assistants", json: ["name": "X", "collection_ids": [theirs]]).status
                    == 422)
            let edit = try await browser.get("/assistants/\(assistantID)/edit").body
            #expect(edit.contains("name=\"collection[]\" value=\"\(mine)\" checked"))
            let saved = try await browser.post(
                "/assistants/\(assistantID)",
                form: ["name": "Helper", "model": "mock-fast", "collections_listed": "1", "collection[]": "\(more)"])
            #expect(saved.status == 303, "\(saved.body)")
            #expect(try await knowledge.collectionIDs(assistantID: Int64(assistantID)) == [Int64(more)])
            let formRefused = try await browser.post(
                "/assistants/\(assistantID)",
                form: ["name": "Helper", "model": "mock-fast", "collections_listed": "1", "collection[]": "\(theirs)"])
            #expect(formRefused.status == 422 && formRefused.body.contains("role=\"alert\""))
            #expect(try await knowledge.collectionIDs(assistantID: Int64(assistantID)) == [Int64(more)])
        }
    }
}
