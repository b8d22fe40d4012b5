import Foundation
import MockUpstream
import ParleyCore
import Testing

/// The `title` event: a conversation's new title reaches its open pages without a reload.
@Suite("Title events")
struct TitleEventTests {
    @Test("an open stream gets the first words, then the model's title, each once and without an id")
    func firstWordsThenModelTitle() async throws {
        try await withTestServer(mockTokens: 6, configure: { $0.generation.modelTitles = true }) { server in
            let api = try await GenerationTests.signedIn(server)
            let id = try await api.createConversation()
            let reader = try await api.events(id)
            #expect(try await api.send(id, "What is the **capital** of France?").status == 202)
            let events = try await reader.collect { event, received in
                received.filter { $0.name == "title" }.count == 2
            }
            let titles = events.filter { $0.name == "title" }
            #expect(
                titles.map { $0.json["title"] as? String } == [
                    "What is the capital of France?", "Hello! This is a mock reply",
                ])
            #expect(titles.allSatisfy { $0.id == nil && ($0.json["conversation_id"] as? Int).map(Int64.init) == id })
        }
    }

    @Test("a rename reaches the conversation's open streams; another conversation's stream hears nothing of it")
    func renameIsAnnounced() async throws {
        try await withTestServer(mockTokens: 3) { server in
            let api = try await GenerationTests.signedIn(server)
            let id = try await api.createConversation()
            let other = try await api.createConversation()
            let reader = try await api.events(id)
            let otherReader = try await api.events(other)
            let renamed = try await api.post(
                "/c/\(id)/rename", body: "title=Trip+to+Lisbon", contentType: "application/x-www-form-urlencoded")
            #expect(renamed.status == 204 || renamed.status == 303)
            let events = try await reader.collect { $0.name == "title" }
            #expect(events.last?.json["title"] as? String == "Trip to Lisbon")
            // The other stream is still open and gets its own conversation's news only.
            _ = try await api.post(
                "/c/\(other)/rename", body: "title=Other", contentType: "application/x-www-form-urlencoded")
            let otherEvents = try await otherReader.collect { $0.name == "title" }
            #expect(otherEvents.compactMap { $0.json["title"] as? String } == ["Other"])
        }
    }
}
