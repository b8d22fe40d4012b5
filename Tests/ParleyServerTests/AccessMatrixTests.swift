import Foundation
import NIOHTTP1
import ParleyCore
import ParleyStore
import Testing

/// Every route of the router against an anonymous visitor, another user and a request without its CSRF token.
/// The table must name every route the router has, so a new route cannot be added without a decision here.
@Suite("Access matrix")
struct AccessMatrixTests {
    /// Who may use a route.
    enum Access {
        /// Anyone, signed in or not.
        case open
        /// A signed-in user, on their own data (no id in the path).
        case signedIn
        /// Only the owner of the conversation, share or share link in the path: everyone else gets 404.
        case owner
        /// Any signed-in user holding a live share link (it makes their own copy).
        case shareHolder
        /// Admins only: 403 for other users.
        case admin
    }

    /// Every route and its rule.
    static let table: [String: Access] = [
        "GET /": .open, "GET /login": .open, "POST /login": .open, "GET /signup": .open, "POST /signup": .open,
        "POST /api/login": .open, "GET /healthz": .open, "GET /metrics": .open, "GET /s/{token}": .open,
        "GET /static/**": .open, "GET /sw.js": .open,
        "POST /logout": .signedIn, "POST /logout/everywhere": .signedIn, "GET /c": .signedIn, "POST /c": .signedIn,
        "GET /search": .signedIn, "GET /settings": .signedIn, "GET /settings/export.json": .signedIn,
        "POST /settings/import": .signedIn, "POST /settings/time-zone": .signedIn,
        "POST /settings/delete-account": .signedIn, "GET /shares": .signedIn,
        "GET /api/conversations": .signedIn, "POST /api/conversations": .signedIn, "GET /api/models": .signedIn,
        "GET /v1/models": .signedIn, "GET /v1/models/**": .signedIn, "POST /v1/chat/completions": .signedIn,
        "GET /assistants": .signedIn, "GET /assistants/new": .signedIn, "POST /assistants": .signedIn,
        "GET /assistants/{id}/edit": .owner, "POST /assistants/{id}": .owner, "POST /assistants/{id}/delete": .owner,
        "POST /assistants/{id}/duplicate": .owner, "POST /assistants/{id}/start": .owner,
        "GET /api/assistants": .signedIn, "POST /api/assistants": .signedIn, "GET /api/assistants/{id}": .owner,
        "PATCH /api/assistants/{id}": .owner, "DELETE /api/assistants/{id}": .owner,
        "POST /api/assistants/{id}/duplicate": .owner,
        "GET /assistants/{id}/icon": .owner, "POST /assistants/{id}/icon": .owner,
        "PUT /api/assistants/{id}/icon": .owner, "DELETE /api/assistants/{id}/icon": .owner,
        "GET /prompts": .signedIn, "GET /prompts/new": .signedIn, "POST /prompts": .signedIn,
        "GET /prompts/{id}/edit": .owner, "POST /prompts/{id}": .owner, "POST /prompts/{id}/delete": .owner,
        "POST /prompts/{id}/duplicate": .owner, "GET /prompts/{id}/use": .owner, "POST /prompts/{id}/use": .owner,
        "GET /api/prompts": .signedIn, "POST /api/prompts": .signedIn, "GET /api/prompts/{id}": .owner,
        "PATCH /api/prompts/{id}": .owner, "DELETE /api/prompts/{id}": .owner,
        "POST /api/prompts/{id}/duplicate": .owner, "POST /api/prompts/{id}/use": .owner,
        "GET /c/{id}": .owner, "POST /c/{id}/rename": .owner, "POST /c/{id}/settings": .owner,
        "POST /c/{id}/delete": .owner, "GET /c/{id}/export.md": .owner, "GET /c/{id}/export.json": .owner,
        "POST /c/{id}/pin": .owner, "POST /c/{id}/unpin": .owner, "POST /c/{id}/archive": .owner,
        "POST /c/{id}/unarchive": .owner, "POST /c/{id}/messages": .owner, "POST /c/{id}/stop": .owner,
        "POST /c/{id}/regenerate": .owner, "GET /c/{id}/events": .owner, "POST /c/{id}/share": .owner,
        "POST /shares/{id}/revoke": .owner, "GET /attachments/{id}": .owner, "POST /s/{token}/revoke": .owner,
        "POST /s/{token}/fork": .shareHolder,
        "DELETE /api/conversations/{id}": .owner, "GET /api/conversations/{id}/messages": .owner,
        "POST /api/conversations/{id}/messages": .owner, "POST /api/conversations/{id}/stop": .owner,
        "POST /c/{id}/current": .owner, "POST /c/{id}/delete-message": .owner, "GET /api/conversations/{id}": .owner,
        "PATCH /api/conversations/{id}": .owner,
        "DELETE /api/conversations/{id}/messages/{message_id}": .owner,
        "POST /api/conversations/{id}/regenerate": .owner, "PUT /api/conversations/{id}/current": .owner,
        "POST /api/conversations/{id}/pin": .owner, "POST /api/conversations/{id}/unpin": .owner,
        "POST /api/conversations/{id}/archive": .owner, "POST /api/conversations/{id}/unarchive": .owner,
        "GET /api/search": .signedIn, "GET /api/usage": .signedIn, "GET /api/openapi.json": .open,
        "GET /admin": .admin, "GET /admin/usage.csv": .admin, "GET /admin/models": .admin, "POST /admin/models": .admin,
        "GET /admin/users": .admin, "POST /admin/users": .admin, "GET /admin/users/{id}": .admin,
        "POST /admin/users/{id}/admin": .admin, "POST /admin/users/{id}/disabled": .admin,
        "POST /admin/users/{id}/budget": .admin, "POST /admin/users/{id}/storage": .admin,
        "POST /admin/users/{id}/password": .admin, "POST /admin/budget": .admin,
        "GET /admin/groups": .admin, "POST /admin/groups": .admin, "GET /admin/groups/{id}": .admin,
        "POST /admin/groups/{id}/members": .admin, "POST /admin/groups/{id}/members/remove": .admin,
        "POST /admin/groups/{id}/models": .admin, "POST /admin/groups/{id}/budget": .admin,
        "POST /admin/groups/{id}/delete": .admin,
        "GET /settings/keys": .signedIn, "POST /settings/keys": .signedIn, "POST /settings/keys/{id}/revoke": .owner,
        "GET /api/keys": .signedIn, "POST /api/keys": .signedIn, "DELETE /api/keys/{id}": .owner,
        "GET /admin/keys": .admin, "POST /admin/keys/{id}/revoke": .admin,
        "GET /invite/{token}": .open, "POST /invite/{token}": .open,
        "GET /settings/account": .signedIn, "POST /settings/display-name": .signedIn,
        "POST /settings/password": .signedIn, "GET /api/me": .signedIn, "POST /api/account/password": .signedIn,
        "POST /settings/sessions/{id}/sign-out": .owner,
        "POST /admin/users/{id}/delete": .admin, "POST /admin/invites": .admin,
        "POST /admin/invites/{id}/revoke": .admin,
        "GET /knowledge": .signedIn, "POST /knowledge": .signedIn, "GET /knowledge/{id}": .owner,
        "POST /knowledge/{id}": .owner, "POST /knowledge/{id}/delete": .owner, "POST /knowledge/{id}/documents": .owner,
        "POST /knowledge/{id}/documents/{document_id}/delete": .owner,
        "GET /api/collections": .signedIn, "POST /api/collections": .signedIn, "GET /api/collections/{id}": .owner,
        "PATCH /api/collections/{id}": .owner, "DELETE /api/collections/{id}": .owner,
        "GET /api/collections/{id}/documents": .owner, "POST /api/collections/{id}/documents": .owner,
        "DELETE /api/collections/{id}/documents/{document_id}": .owner,
        "POST /c/{id}/documents": .owner, "POST /api/conversations/{id}/documents": .owner,
        "GET /documents/{id}": .owner, "GET /api/documents/{id}": .owner, "DELETE /api/documents/{id}": .owner,
        "GET /admin/tools": .admin, "POST /admin/tools": .admin, "POST /c/{id}/tools/{call_id}": .owner,
        "POST /api/conversations/{id}/tools/{call_id}": .owner,
    ]

    /// Form fields that every owner route accepts, so that a refusal is about who asks, not what they sent.
    static let validForm = [
        "content": "x", "title": "x", "model": "mock-fast", "author": "anonymous", "expires": "never",
    ]

    /// What the owner has that the others must not reach.
    struct OwnedThings {
        var conversation: Int64
        var shareToken: String
        var shareID: String
        var attachmentID: Int64
        var message: Int64
        /// The handle of the owner's browser session (`SessionHandle`), as their account page names it.
        var sessionHandle: String
        /// A live invite link's token, made by the owner (the first account, an admin).
        var inviteToken: String
        /// The owner's private assistant.
        var assistantID: Int64
        /// The owner's private prompt.
        var promptID: Int64
        /// The owner's knowledge collection, and a document in it.
        var collectionID: Int64
        var collectionDocumentID: Int64

        /// The route's path with its captures filled with the owner's ids.
        func path(for template: String) -> String {
            let capture =
                template.hasPrefix("/shares/")
                ? shareID
                : template.hasPrefix("/attachments/")
                    ? "\(attachmentID)"
                    : template.hasPrefix("/settings/sessions/")
                        ? sessionHandle
                        : template.contains("/assistants/")
                            ? "\(assistantID)"
                            : template.contains("/prompts/")
                                ? "\(promptID)"
                                : template.hasPrefix("/knowledge/") || template.hasPrefix("/api/collections/")
                                    ? "\(collectionID)"
                                    : template.hasPrefix("/documents/") || template.hasPrefix("/api/documents/")
                                        ? "\(collectionDocumentID)" : "\(conversation)"
            return template.replacingOccurrences(of: "{id}", with: capture)
                .replacingOccurrences(of: "{document_id}", with: "\(collectionDocumentID)")
                .replacingOccurrences(of: "{token}", with: template.hasPrefix("/invite/") ? inviteToken : shareToken)
                .replacingOccurrences(of: "{message_id}", with: "\(message)")
                .replacingOccurrences(of: "{call_id}", with: "call_1")
                .replacingOccurrences(of: "**", with: "katex/katex.min.css")
        }
    }

    @Test("every route is in the table, and each refuses anonymous visitors, other users and missing CSRF tokens")
    func matrix() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            let routes = Set(server.routes)
            #expect(
                routes == Set(Self.table.keys),
                """
                routes not in the table: \(routes.subtracting(Self.table.keys).sorted()); \
                table entries with no route: \(Set(Self.table.keys).subtracting(routes).sorted())
                """)
            var owner = server.browser()
            _ = try await owner.signUp("owner@example.com")
            let conversation = try await owner.createConversation(content: "owned question")
            let api = try await APIClient.signIn(server, email: "owner@example.com")
            try await AttachmentTests.waitForReply(api, conversation)
            let shared = try await owner.post(
                "/c/\(conversation)/share", form: ["author": "anonymous", "expires": "never"],
                headers: [("Accept", "application/json")])
            let url = try #require(try shared.json()["url"] as? String)
            let list = try await owner.get("/shares").body
            let shareID = try #require(list.firstMatch(of: /\/shares\/(\d+)\/revoke/).map { String($0.1) })
            let question = try #require(try await api.messages(conversation).first?["id"] as? Int)
            let image = try NewImage(fileName: "owned.png", bytes: try Fixtures.image("gradient.png"))
            let database = try ParleyDatabase(directory: server.dataDirectory)
            let attachment = try #require(
                try await SQLiteChatStore(database: database)
                    .addAttachments([image], messageID: Int64(question), userID: 1).first)
            let account = try await owner.get("/settings/account").body
            let sessionHandle = try #require(
                account.firstMatch(of: /\/settings\/sessions\/([0-9a-f]+)\/sign-out/).map { String($0.1) })
            let invited = try await owner.post("/admin/invites", form: ["email": ""]).body
            let inviteToken = try #require(invited.firstMatch(of: /\/invite\/([0-9a-f]{32})/).map { String($0.1) })
            let assistant = try await api.request(
                .POST, "/api/assistants", json: ["name": "Owned", "model": "mock-fast"])
            let assistantID = try #require(try assistant.json()["id"] as? Int)
            let prompt = try await api.request(
                .POST, "/api/prompts", json: ["title": "Owned", "command": "owned", "body": "Owned {{thing}}"])
            let promptID = try #require(try prompt.json()["id"] as? Int)
            let collection = try await api.request(.POST, "/api/collections", json: ["name": "Owned"])
            let collectionID = try #require(try collection.json()["id"] as? Int)
            let collectionDocument = try await SQLiteDocumentStore(database: database).addDocument(
                NewDocument(
                    name: "owned.txt", kind: .text, bytes: Array("owned".utf8), place: .collection(Int64(collectionID))),
                userID: 1)
            let owned = OwnedThings(
                conversation: conversation, shareToken: String(url.split(separator: "/").last ?? ""),
                shareID: shareID, attachmentID: attachment.id, message: Int64(question), sessionHandle: sessionHandle,
                inviteToken: inviteToken, assistantID: Int64(assistantID), promptID: Int64(promptID),
                collectionID: Int64(collectionID), collectionDocumentID: collectionDocument.id)
            var other = server.browser()
            _ = try await other.signUp("other@example.com")
            let otherAPI = try await APIClient.signIn(server, email: "other@example.com")
            var anonymous = server.browser()

            for route in server.routes.sorted() {
                let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
                let (method, path) = (HTTPMethod(rawValue: parts[0]), owned.path(for: parts[1]))
                guard let access = Self.table[route] else { continue }
                let isAPI = path.hasPrefix("/api/")
                if access != .open {
                    let refused = try await anonymous.send(
                        method, path, headers: [("Content-Type", "application/x-www-form-urlencoded")])
                    #expect(
                        isAPI ? refused.status == 401 : !(200..<300).contains(refused.status),
                        "anonymous \(route) answered \(refused.status)")
                    #expect(
                        refused.status != 303 || refused.location?.hasPrefix("/login") == true,
                        "anonymous \(route) redirected to \(refused.location ?? "")")
                }
                if method == .POST, route != "POST /api/login" {
                    let withoutToken = try await other.post(path, csrf: false)
                    #expect(withoutToken.status == 403, "\(route) without a CSRF token answered \(withoutToken.status)")
                }
                switch access {
                case .owner:
                    let status =
                        isAPI
                        ? try await otherAPI.request(
                            method, path, json: method == .GET || method == .DELETE ? nil : ["content": "x"]
                        ).status
                        : method == .GET
                            ? try await other.get(path).status : try await other.post(path, form: Self.validForm).status
                    #expect(status == 404, "another user's \(route) answered \(status)")
                case .admin:
                    let status = method == .GET ? try await other.get(path).status : try await other.post(path).status
                    #expect(status == 403, "a non-admin's \(route) answered \(status)")
                case .open, .signedIn, .shareHolder:
                    break
                }
            }

            // Nothing the others tried changed the owner's things.
            let messages = try await api.messages(conversation)
            #expect(messages.first?["content"] as? String == "owned question")
            #expect(messages.count == 2)
            #expect(try await anonymous.get(url).status == 200)
            #expect(try await owner.get("/c/\(conversation)").status == 200)
            #expect(try await owner.get("/attachments/\(attachment.id)").bytes == image.bytes)
            #expect(try await owner.get("/settings/account").body.contains(sessionHandle))
            #expect(try await anonymous.get("/invite/\(inviteToken)").status == 200)
            let kept = try await api.request(.GET, "/api/prompts/\(promptID)").json()
            #expect(kept["title"] as? String == "Owned" && kept["body"] as? String == "Owned {{thing}}")
            let keptCollection = try await api.request(.GET, "/api/collections/\(collectionID)").json()
            #expect(keptCollection["name"] as? String == "Owned" && keptCollection["document_count"] as? Int == 1)
        }
    }
}
