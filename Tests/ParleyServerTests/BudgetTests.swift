import Foundation
import NIOHTTP1
import ParleyCore
import Testing

@testable import ParleyServer

/// Monthly budgets: the exact 402 boundary, the warning from 80%, and concurrent sends.
@Suite("Budgets")
struct BudgetTests {
    /// With output at $1,000 per million tokens and input free, a 30-token mock reply costs exactly $0.03.
    static let replyCost: Int64 = 30_000

    /// A server with an admin who priced `mock-fast` and a user; runs `body` with the admin's browser, the user's
    /// browser, API client and id.
    static func withPricedServer(
        _ body: (TestServer, inout Browser, inout Browser, APIClient, Int64) async throws -> Void
    ) async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var admin = server.browser()
            _ = try await admin.signUp("admin@example.com")
            try await admin.setPrice("mock-fast", input: "0", output: "1000")
            var user = server.browser()
            _ = try await user.signUp("user@example.com")
            let api = try await APIClient.signIn(server, email: "user@example.com")
            try await body(server, &admin, &user, api, try await server.database().userID("user@example.com"))
        }
    }

    @Test("just below the budget a send is allowed; at or above it, 402 naming the budget and the day it resets")
    func boundary() async throws {
        try await Self.withPricedServer { server, admin, user, api, userID in
            let conversation = try await api.createConversation(model: "mock-fast")
            #expect(try await api.reply(conversation, "one").costMicros == Self.replyCost)
            #expect(try await admin.post("/admin/users/\(userID)/budget", form: ["budget": "0.06"]).status == 303)
            #expect(!(try await user.get("/c/\(conversation)").body.contains("monthly budget")))  // 50%
            _ = try await api.reply(conversation, "two")  // spent $0.06

            let refused = try await api.send(conversation, "three")
            #expect(refused.status == 402)
            let error = try #require(try refused.json()["error"] as? [String: Any])
            let resets = DayText.long(UsageDay.today.firstOfNextMonth)
            #expect(error["code"] as? String == "budget_exceeded")
            let message = try #require(error["message"] as? String)
            #expect(
                message.contains("$0.06 of your monthly budget of $0.06")
                    && message.contains("resets on \(resets) (UTC)"))
            let form = try await user.post("/c/\(conversation)/messages", form: ["content": "three"])
            #expect(form.status == 402 && form.body.contains("resets on \(resets)"))
            #expect(try await user.post("/c/\(conversation)/regenerate").status == 402)
            #expect(try await api.messages(conversation).count == 4)  // nothing was removed

            #expect(try await admin.post("/admin/users/\(userID)/budget", form: ["budget": "0.060001"]).status == 303)
            let page = try await user.get("/c/\(conversation)").body
            #expect(page.contains("You have used 99% of your monthly budget ($0.06 of $0.06)"))
            _ = try await api.reply(conversation, "three")  // just below: allowed
            #expect(try await api.send(conversation, "four").status == 402)
            let settings = try await user.get("/settings").body
            #expect(settings.contains("Usage this month") && settings.contains("<strong>$0.09</strong>"))

            // The default budget applies to users without their own.
            #expect(try await admin.post("/admin/users/\(userID)/budget", form: ["budget": ""]).status == 303)
            #expect(try await admin.post("/admin/budget", form: ["budget": "0.09"]).status == 303)
            #expect(try await api.send(conversation, "four").status == 402)
            #expect(try await admin.post("/admin/budget", form: ["budget": "0.090001"]).status == 303)
            _ = try await api.reply(conversation, "four")
            #expect(
                try await server.database().integer("SELECT SUM(cost_micros) FROM usage_daily") == 4 * Self.replyCost)
        }
    }

    @Test("a send repeated after its reply spent the budget gets its first result back, not 402; a new one gets 402")
    func repeatedSendPastTheBudget() async throws {
        try await Self.withPricedServer { server, admin, _, api, userID in
            #expect(try await admin.post("/admin/users/\(userID)/budget", form: ["budget": "0.03"]).status == 303)
            let conversation = try await api.createConversation(model: "mock-fast")
            let first = try await api.send(conversation, "one", requestID: "once")
            #expect(first.status == 202)
            let replyID = try #require(try first.json()["assistant_message_id"] as? Int)
            _ = try await api.events(conversation, lastEventID: "\(replyID)0000000").untilDone(timeout: .seconds(20))

            let repeated = try await api.send(conversation, "one", requestID: "once")
            #expect(repeated.status == 202)
            #expect(try repeated.json()["assistant_message_id"] as? Int == replyID)
            #expect(try repeated.json()["repeated"] as? Bool == true)
            #expect(try await api.send(conversation, "two", requestID: "twice").status == 402)
            #expect(try await api.messages(conversation).count == 2)
            #expect(try await server.mockStats().requests == 1)
        }
    }

    @Test("ten sends at once just under the budget start one reply: the overspend is at most one reply")
    func concurrentSends() async throws {
        try await Self.withPricedServer { server, admin, _, api, userID in
            let first = try await api.createConversation(model: "mock-fast")
            _ = try await api.reply(first, "warm up")
            #expect(try await admin.post("/admin/users/\(userID)/budget", form: ["budget": "0.030001"]).status == 303)
            var conversations: [Int64] = []
            for _ in 0..<10 { conversations.append(try await api.createConversation(model: "mock-fast")) }
            let statuses = try await withThrowingTaskGroup(of: (Int64, TestResponse).self) { group in
                for conversation in conversations {
                    group.addTask { (conversation, try await api.send(conversation, "at once")) }
                }
                return try await group.reduce(into: [(Int64, TestResponse)]()) { $0.append($1) }
            }
            let accepted = statuses.filter { $0.1.status == 202 }
            #expect(accepted.count == 1)
            #expect(statuses.allSatisfy { [202, 402, 409].contains($0.1.status) }, "\(statuses.map(\.1.status))")
            for (_, refused) in statuses where refused.status == 409 {
                #expect((try refused.json()["error"] as? [String: Any])?["code"] as? String == "budget_reply_running")
            }
            for (conversation, response) in accepted {
                let reply = try #require(try response.json()["assistant_message_id"] as? Int)
                _ = try await api.events(conversation, lastEventID: "\(reply)0000000").untilDone()
            }
            let spent = try await server.database().integer("SELECT SUM(cost_micros) FROM usage_daily")
            #expect(spent == 2 * Self.replyCost)
            #expect(spent <= 30_001 + Self.replyCost)
            #expect(try await api.send(conversations[0], "after").status == 402)
        }
    }
}
