import Foundation
import Testing

/// A running reply's `token` events leave out `message_id`; every stream names a reply before its first such event.
@Suite struct EventAttributionTests {
    @Test("a stream names each reply once, and a stream resumed mid-reply names it in its first event")
    func idLessEventsBelongToTheReplyNamedLast() async throws {
        try await withTestServer(mockTokens: 10) { server in
            let api = try await GenerationTests.signedIn(server)
            let id = try await api.createConversation(model: "mock-slow")
            let stream = try await api.events(id)
            let first = try #require(try await api.send(id, "one").json()["assistant_message_id"] as? Int)
            // A title may come at any point; it belongs to the conversation, not to a reply.
            let head = try await stream.untilTokens(3).filter { $0.name != "title" }
            #expect(head.first?.name == "start" && head.first?.json["message_id"] as? Int == first)
            #expect(head.dropFirst().allSatisfy { $0.name == "token" && $0.json["message_id"] == nil })

            let resumed = try await api.events(id, lastEventID: try #require(head.last?.id))
            let rest = try await resumed.untilDone(timeout: .seconds(20)).filter { $0.name != "title" }
            #expect(rest.first?.name == "token" && rest.first?.json["message_id"] as? Int == first)
            #expect(rest.dropFirst().filter { $0.name == "token" }.allSatisfy { $0.json["message_id"] == nil })
            #expect(rest.done?.json["message_id"] as? Int == first)
            #expect(head.allSatisfy { $0.reply == first } && rest.allSatisfy { $0.reply == first })

            let firstReply = try await stream.untilDone(timeout: .seconds(20)).filter { $0.name != "title" }
            #expect(firstReply.allSatisfy { $0.reply == first })
            let second = try #require(try await api.send(id, "two").json()["assistant_message_id"] as? Int)
            let secondReply = try await stream.untilDone(timeout: .seconds(20)).filter { $0.name != "title" }
            #expect(secondReply.first?.name == "start" && secondReply.first?.json["message_id"] as? Int == second)
            #expect(secondReply.count > 2 && secondReply.allSatisfy { $0.reply == second })
        }
    }
}
