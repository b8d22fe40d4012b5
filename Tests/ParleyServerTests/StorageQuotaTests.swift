import Foundation
import Testing

@testable import ParleyServer

/// A signed-in user cannot fill the disk: past their storage quota a send is refused with 413 and stores nothing, and
/// an admin sees each user's use and sets their quota.
@Suite("Security: storage quota")
struct StorageQuotaTests {
    @Test(
        "an admin sets a user's quota on their page; a send past it gets 413 storage_full and stores nothing; emptied, the default applies again"
    )
    func quotaRefusesSends() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var admin = server.browser()
            _ = try await admin.signUp("admin@example.com")
            let api = try await GenerationTests.signedIn(server, email: "user@example.com")
            let conversation = try await api.createConversation()
            // Answered as an event stream, the request returns once the reply has ended.
            let first = try await api.request(
                .POST, "/api/conversations/\(conversation)/messages", json: ["content": "first message"],
                headers: [("Accept", "text/event-stream")])
            #expect(first.status == 200)
            let users = try await admin.get("/admin/users").body
            let userPath = String(
                try #require(users.firstMatch(of: /href="(\/admin\/users\/\d+)">user@example.com/)?.1))
            #expect(try await admin.get(userPath).body.contains("Storage: <strong>"))

            for bad in ["-1", "abc", "1.5", "99999999999999"] {
                #expect(try await admin.post(userPath + "/storage", form: ["quota": bad]).status == 422, "\(bad)")
            }
            #expect(try await admin.post("/admin/users/999999/storage", form: ["quota": "1"]).status == 404)
            #expect(try await admin.post(userPath + "/storage", form: ["quota": "0"]).status == 303)
            #expect(try await admin.get(userPath).body.contains("over quota"))
            let before = try await api.messages(conversation).count
            let refused = try await api.send(conversation, "one more")
            #expect(refused.status == 413)
            let error = try #require(try refused.json()["error"] as? [String: Any])
            #expect(error["code"] as? String == "storage_full")
            #expect((error["message"] as? String)?.contains("of 0.0 MB used") == true)
            #expect(try await api.messages(conversation).count == before)

            #expect(try await admin.post(userPath + "/storage", form: ["quota": ""]).status == 303)
            #expect(try await api.send(conversation, "one more").status == 202)
        }
    }

    @Test("PARLEY_USER_STORAGE_MB sets the default quota; anything but a whole number of megabytes from 1 is refused")
    func defaultQuotaSetting() throws {
        #expect(try ServerSettings(environment: [:]).userStorageBytes == 1024 * 1_048_576)
        #expect(try ServerSettings(environment: ["PARLEY_USER_STORAGE_MB": "5"]).userStorageBytes == 5 * 1_048_576)
        for bad in ["0", "-3", "1.5", "lots"] {
            #expect(throws: SettingsError.self) { try ServerSettings(environment: ["PARLEY_USER_STORAGE_MB": bad]) }
        }
    }
}
