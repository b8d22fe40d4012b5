import Foundation
import GRDB
import ParleyCore
import ParleyStore
import Testing

/// Groups and model access: a model a group opens is for its members alone (in the composer, in `/api/models`, and
/// on every send, regeneration and new conversation, refused with 403 `model_not_allowed` and nothing stored); a
/// group's budget stops its members together; the admin forms refuse bad input.
@Suite("Groups and model access")
struct GroupAccessTests {
    /// The group id an admin's create form leads to.
    static func createGroup(_ admin: inout Browser, _ name: String) async throws -> Int64 {
        let created = try await admin.post("/admin/groups", form: ["name": name])
        let location = try #require(created.location)
        return try #require(Int64(location.split(separator: "/").last ?? ""))
    }

    /// The model ids `/api/models` lists for the client.
    static func listedModels(_ api: APIClient) async throws -> Set<String> {
        let data = try await api.request(.GET, "/api/models").json()["data"] as? [[String: Any]] ?? []
        return Set(data.compactMap { $0["id"] as? String })
    }

    /// The number of messages stored in every conversation.
    static func messageCount(_ server: TestServer) throws -> Int {
        try ParleyDatabase(directory: server.dataDirectory).pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM messages") ?? 0
        }
    }

    @Test func aModelAGroupOpensIsForItsMembersAlone() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var (admin, _) = try await server.signUp("admin@example.com")
            let (memberBrowser, member) = try await server.signUp("member@example.com")
            var (outsiderBrowser, outsider) = try await server.signUp("outsider@example.com")
            // A conversation the outsider began on mock-slow before it was restricted.
            let earlier = try await outsider.createConversation(model: "mock-slow")
            let group = try await Self.createGroup(&admin, "research")
            #expect(
                try await admin.post("/admin/groups/\(group)/members", form: ["email": "member@example.com"]).status
                    == 303)
            #expect(
                try await admin.post("/admin/groups/\(group)/models", form: ["models[]": "mock-slow"]).status == 303)
            let page = try await admin.get("/admin/groups/\(group)")
            #expect(page.body.contains("member@example.com"))
            #expect(page.body.contains(#"value="mock-slow" checked"#))

            #expect(try await Self.listedModels(member).contains("mock-slow"))
            #expect(try await !Self.listedModels(outsider).contains("mock-slow"))
            #expect(try await Self.listedModels(outsider).contains("mock-fast"))
            #expect(try await outsiderBrowser.get("/c").body.contains(#"value="mock-slow""#) == false)
            _ = memberBrowser

            let before = try Self.messageCount(server)
            let created = try await outsider.request(.POST, "/api/conversations", json: ["model": "mock-slow"])
            #expect(created.status == 403)
            #expect((try created.json()["error"] as? [String: Any])?["code"] as? String == "model_not_allowed")
            let own = try await outsider.createConversation(model: "mock-fast")
            let named = try await outsider.send(own, "hello", model: "mock-slow")
            #expect(named.status == 403)
            #expect(named.body.contains("model_not_allowed"))
            let onEarlier = try await outsider.send(earlier, "hello again")
            #expect(onEarlier.status == 403)
            let regenerate = try await outsider.request(
                .POST, "/api/conversations/\(own)/regenerate", json: ["model": "mock-slow"])
            #expect(regenerate.status == 403)
            let form = try await outsiderBrowser.post(
                "/c/\(own)/messages", form: ["content": "hi", "model": "mock-slow"])
            #expect(form.status == 403)
            #expect(form.body.contains("ask an admin for access"))
            #expect(try Self.messageCount(server) == before)

            let allowed = try await member.createConversation(model: "mock-slow")
            #expect(try await member.send(allowed, "hello").status == 202)

            // Out of the group, out of the model; the group gone, the model is everybody's again.
            let memberID = try #require(
                try await SQLiteAccountStore(database: ParleyDatabase(directory: server.dataDirectory)).user(
                    email: "member@example.com")?.id)
            #expect(
                try await admin.post("/admin/groups/\(group)/members/remove", form: ["user": "\(memberID)"]).status
                    == 303)
            #expect(try await !Self.listedModels(member).contains("mock-slow"))
            #expect(try await admin.post("/admin/groups/\(group)/delete").location == "/admin/groups")
            #expect(try await Self.listedModels(outsider).contains("mock-slow"))
        }
    }

    @Test func aGroupsBudgetStopsItsMembersTogether() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var (admin, _) = try await server.signUp("admin@example.com")
            let (_, member) = try await server.signUp("member@example.com")
            let (_, outsider) = try await server.signUp("outsider@example.com")
            let group = try await Self.createGroup(&admin, "interns")
            // The admin API: the same routes with a bearer token and JSON bodies.
            let adminAPI = try await APIClient.signIn(server, email: "admin@example.com")
            let added = try await adminAPI.request(
                .POST, "/admin/groups/\(group)/members", json: ["email": "member@example.com"])
            #expect(added.status == 303)
            #expect(
                try await adminAPI.request(.POST, "/admin/groups/\(group)/budget", json: ["budget": "0"]).status == 303)
            let conversation = try await member.createConversation()
            let refused = try await member.send(conversation, "hello")
            #expect(refused.status == 402)
            #expect(refused.body.contains("interns"))
            #expect(try await outsider.send(try await outsider.createConversation(), "hello").status == 202)
            let groups = try await admin.get("/admin/groups")
            #expect(groups.body.contains("interns"))
            #expect(groups.body.contains("$0.00"))
            let dashboard = try await admin.get("/admin")
            #expect(dashboard.body.contains(#"<a href="/admin/groups/\#(group)">interns</a>"#))
        }
    }

    @Test func theAdminFormsRefuseBadInputAndChangeNothing() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var (admin, _) = try await server.signUp("admin@example.com")
            let group = try await Self.createGroup(&admin, "Team")
            #expect(try await admin.post("/admin/groups", form: ["name": "team"]).status == 409)
            #expect(try await admin.post("/admin/groups", form: ["name": "  "]).status == 422)
            #expect(
                try await admin.post("/admin/groups", form: ["name": String(repeating: "x", count: 101)]).status == 422)
            #expect(try await admin.post("/admin/groups", form: ["name": "bell\u{7}"]).status == 422)
            #expect(
                try await admin.post("/admin/groups/\(group)/members", form: ["email": "nobody@example.com"]).status
                    == 404)
            #expect(try await admin.post("/admin/groups/\(group)/budget", form: ["budget": "lots"]).status == 422)
            #expect(try await admin.post("/admin/groups/\(group)/members/remove", form: [:]).status == 400)
            #expect(try await admin.post("/admin/groups/\(group)/models", form: ["models[]": ""]).status == 422)
            for path in ["/members", "/models", "/budget", "/delete"] {
                let status = try await admin.post("/admin/groups/999\(path)", form: ["email": "admin@example.com"])
                    .status
                #expect(status == 404, "\(path): \(status)")
            }
            #expect(try await admin.get("/admin/groups/999").status == 404)
            let groups = try await SQLiteGroupStore(database: ParleyDatabase(directory: server.dataDirectory)).groups()
            #expect(groups.map(\.name) == ["Team"])
            #expect(
                groups.first?.memberCount == 0 && groups.first?.models == [] && groups.first?.monthlyBudgetMicros == nil
            )
        }
    }
}
