import Foundation
import GRDB
import ParleyCore
import ParleyStore
import Testing

@testable import ParleyServer

/// Personal API keys: made with a session (the form or `/api/keys`), shown once and stored as a digest; good as a
/// Bearer token on the JSON API alone, until revoked, expired or its user disabled; an admin sees and revokes any.
@Suite("Personal API keys")
struct APIKeyTests {
    /// A key made through `POST /api/keys`: its id and text.
    static func makeKey(_ api: APIClient, name: String = "scripts", expiresAt: String? = nil) async throws
        -> (id: Int64, text: String)
    {
        var body: [String: Any] = ["name": name]
        if let expiresAt { body["expires_at"] = expiresAt }
        let made = try await api.request(.POST, "/api/keys", json: body)
        #expect(made.status == 201, "\(made.body)")
        let json = try made.json()
        let id = try #require((json["id"] as? Int).map(Int64.init))
        return (id, try #require(json["key"] as? String))
    }

    /// A client that sends `key` as its Bearer token.
    static func client(_ server: TestServer, key: String) -> APIClient {
        APIClient(server: server, token: key)
    }

    @Test func aKeyIsShownOnceStoredAsADigestAndWorksOnTheJSONAPIAlone() async throws {
        try await withTestServer { server in
            let (browser, api) = try await server.signUp("owner@example.com")
            let (id, text) = try await Self.makeKey(api)
            #expect(text.hasPrefix("pk-") && text.count == 46)
            let listed = try await api.request(.GET, "/api/keys").json()["data"] as? [[String: Any]] ?? []
            #expect(listed.count == 1 && listed.first?["name"] as? String == "scripts" && listed.first?["key"] == nil)
            let stored = try await ParleyDatabase(directory: server.dataDirectory).pool.read { db in
                try String.fetchAll(db, sql: "SELECT digest FROM api_keys")
            }
            #expect(stored == [APIKeyAuthority.digest(text)])
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: server.dataDirectory + "/parley.sqlite")).range(
                    of: Data(text.utf8)) == nil)

            let withKey = Self.client(server, key: text)
            let conversation = try await withKey.createConversation()
            #expect(try await withKey.send(conversation, "hello from a script").status == 202)
            #expect(try await withKey.request(.GET, "/api/models").status == 200)
            // Never the pages, the admin pages or the keys themselves.
            for page in ["/c", "/admin", "/settings/keys"] {
                let refused = try await withKey.request(.GET, page, headers: [("Accept", "application/json")])
                #expect(refused.status == 401 && refused.body.contains("invalid_token"), "\(page): \(refused.status)")
                #expect(try await withKey.request(.GET, page).location?.hasPrefix("/login") == true)
            }
            #expect(try await withKey.request(.GET, "/api/keys").status == 401)
            #expect(try await withKey.request(.POST, "/api/keys", json: ["name": "more"]).status == 401)
            #expect(try await withKey.request(.DELETE, "/api/keys/\(id)").status == 401)
            // Its last use is recorded.
            let used = try await api.request(.GET, "/api/keys").json()["data"] as? [[String: Any]] ?? []
            #expect(used.first?["last_used_at"] is String)

            // Revoked, it stops at once.
            #expect(try await api.request(.DELETE, "/api/keys/\(id)").status == 204)
            let refused = try await withKey.request(.GET, "/api/models")
            #expect(refused.status == 401)
            #expect(refused.body.contains("invalid_api_key"))
            _ = browser
        }
    }

    @Test func keysStopWhenTheyExpireOrTheirUserIsDisabled() async throws {
        let clock = MovableWallClock()
        try await withTestServer(configure: {
            $0.signup = .open; $0.wallClock = { clock.now }
        }) { server in
            var (admin, _) = try await server.signUp("admin@example.com")
            let (_, api) = try await server.signUp("member@example.com")
            let soon = Date().addingTimeInterval(3_600).formatted(.iso8601)
            let expiring = try await Self.makeKey(api, name: "an hour", expiresAt: soon)
            let lasting = try await Self.makeKey(api, name: "for good")
            #expect(try await Self.client(server, key: expiring.text).request(.GET, "/api/models").status == 200)
            clock.move(by: 3_601)
            #expect(try await Self.client(server, key: expiring.text).request(.GET, "/api/models").status == 401)
            #expect(try await Self.client(server, key: lasting.text).request(.GET, "/api/models").status == 200)
            // The last use is written at most once a minute.
            func lastUse() async throws -> String? {
                let keys = try await api.request(.GET, "/api/keys").json()["data"] as? [[String: Any]] ?? []
                return keys.first { $0["name"] as? String == "for good" }?["last_used_at"] as? String
            }
            let first = try #require(try await lastUse())
            clock.move(by: 30)
            _ = try await Self.client(server, key: lasting.text).request(.GET, "/api/models")
            #expect(try await lastUse() == first)
            clock.move(by: 31)
            _ = try await Self.client(server, key: lasting.text).request(.GET, "/api/models")
            #expect(try await lastUse() != first)

            let member = try #require(
                try await SQLiteAccountStore(database: ParleyDatabase(directory: server.dataDirectory))
                    .user(email: "member@example.com"))
            _ = try await admin.post("/admin/users/\(member.id)/disabled", form: ["disabled": "1"])
            #expect(try await Self.client(server, key: lasting.text).request(.GET, "/api/models").status == 401)
        }
    }

    @Test func badRequestsAreRefusedAndOthersKeysAreOutOfReach() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var (admin, _) = try await server.signUp("admin@example.com")
            var (ownerBrowser, owner) = try await server.signUp("owner@example.com")
            let (_, other) = try await server.signUp("other@example.com")
            let key = try await Self.makeKey(owner)
            for body: [String: Any] in [
                [:], ["name": ""], ["name": String(repeating: "k", count: 101)], ["name": "bell\u{7}"],
                ["name": "past", "expires_at": "2001-01-01T00:00:00Z"], ["name": "bad", "expires_at": "soon"],
                ["name": 7],
            ] {
                let refused = try await owner.request(.POST, "/api/keys", json: body)
                #expect([400, 422].contains(refused.status), "\(body): \(refused.status)")
            }
            #expect(try await other.request(.DELETE, "/api/keys/\(key.id)").status == 404)
            var otherBrowser = server.browser()
            _ = try await otherBrowser.signIn("other@example.com")
            #expect(try await otherBrowser.post("/settings/keys/\(key.id)/revoke").status == 404)
            #expect(try await Self.client(server, key: key.text).request(.GET, "/api/models").status == 200)
            #expect(
                try await Self.client(server, key: "pk-" + String(repeating: "A", count: 43)).request(
                    .GET, "/api/models"
                ).status == 401)

            // The settings page makes a key and shows it once; the admin sees every key and may revoke any.
            let made = try await ownerBrowser.post("/settings/keys", form: ["name": "laptop", "expires_in_days": "30"])
            #expect(made.status == 200)
            let shown = try #require(made.body.firstMatch(of: /value="(pk-[A-Za-z0-9_-]{43})"/).map { String($0.1) })
            #expect(try await ownerBrowser.get("/settings/keys").body.contains(shown) == false)
            let laptop = try #require(
                try await owner.request(.GET, "/api/keys").json()["data"] as? [[String: Any]]
            ).first { $0["name"] as? String == "laptop" }
            let expiry = try #require((laptop?["expires_at"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
            #expect(abs(expiry.timeIntervalSinceNow - 30 * 86_400) < 600)
            let all = try await admin.get("/admin/keys")
            #expect(all.body.contains("owner@example.com") && all.body.contains("laptop"))
            #expect(try await admin.post("/admin/keys/\(key.id)/revoke").location == "/admin/keys")
            #expect(try await Self.client(server, key: key.text).request(.GET, "/api/models").status == 401)
            #expect(try await Self.client(server, key: shown).request(.GET, "/api/models").status == 200)
            #expect(try await ownerBrowser.post("/settings/keys", form: ["name": " "]).status == 422)
        }
    }
}
