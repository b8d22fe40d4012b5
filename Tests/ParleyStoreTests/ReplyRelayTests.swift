import Foundation
import Logging
import ParleyCore
import PostgresNIO
import Synchronization
import TestDatabases
import Testing

@testable import ParleyPostgres

/// The relay between instances on a real PostgreSQL: its notifications' text, what one instance's relay hears of
/// another's, and the leases that say which instance runs a reply.
@Suite struct ReplyRelayTests {
    static let event = RelayedEvent(
        conversationID: 7, id: EventID(messageID: 42, sequence: 3), kind: .token,
        fields: Array(#""text":"é 🙂\n","append":"<p>x</p>""#.utf8))

    @Test("records read back as written, several to a notification, none longer than PostgreSQL takes")
    func wireRoundTrip() throws {
        let records: [RelayWire.Record] = [
            .event(Self.event), .stop(9), .decision(9, callID: "call 1 ✓", allow: true),
            .decision(9, callID: "c2", allow: false), .title(7, frame: "event: title\ndata: {\"title\":\"ü\"}\n\n"),
        ]
        let bodies = RelayWire.bodies(records)
        #expect(bodies.count == 1)
        #expect(RelayWire.records(bodies[0]) == records)

        let many = (0..<500).map { _ in RelayWire.Record.event(Self.event) }
        let packed = RelayWire.bodies(many)
        #expect(packed.count > 1)
        #expect(packed.allSatisfy { $0.count + 60 <= RelayWire.notificationLimit })
        #expect(packed.flatMap { RelayWire.records($0) ?? [] } == many)

        let long = RelayWire.Record.event(
            RelayedEvent(
                conversationID: 1, id: EventID(messageID: 2, sequence: 1), kind: .token,
                fields: Array("\"tail\":\"\(String(repeating: "x", count: 20_000))\"".utf8)))
        let alone = RelayWire.bodies([.stop(1), long, .stop(2)])
        #expect(alone.map { RelayWire.records($0) ?? [] } == [[.stop(1)], [long], [.stop(2)]])
    }

    @Test("a payload names its sender and number; anything else on the channel is ignored")
    func payloads() {
        let sender = UUID()
        let text = RelayWire.header(sender: sender, number: 12) + "S 5\n"
        #expect(RelayWire.payload(text) == .init(sender: sender, number: 12, body: .records(Array("S 5\n".utf8))))
        #expect(RelayWire.payload(RelayWire.header(sender: sender, number: 13) + "@99")?.body == .stored(99))
        #expect(RelayWire.payload("hello") == nil)
        #expect(RelayWire.records(Array("E 1 2 3\n".utf8)) == nil)
        #expect(RelayWire.records(Array("E 1 2 3 1 50\nshort".utf8)) == nil)
        #expect(RelayWire.records(Array("X 1\n".utf8)) == nil)
    }

    @Test("what one instance's relay publishes reaches another's in order, a record too long for NOTIFY included")
    func relaysBetweenInstances() async throws {
        try await TestPostgres.shared.withDatabase { database in
            let other = PostgresStorage(location: database.location, logger: Logger(label: "other"))
            let heard = Heard()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await other.run() }
                let sender = PostgresReplyRelay(storage: database)
                let receiver = PostgresReplyRelay(storage: other)
                group.addTask { await sender.run { _ in } }
                group.addTask { await receiver.run { heard.add($0) } }
                defer { group.cancelAll() }
                // The receiver listens once its connection is up: a stop is sent until one arrives (a later one may
                // still come after, so stops are left out of what is compared).
                try await Self.waitUntil { () -> Bool in
                    sender.requestStop(1)
                    try await Task.sleep(for: .milliseconds(100))
                    return heard.messages.withLock { !$0.isEmpty }
                }
                let relayed = { heard.messages.withLock { $0.filter { $0 != .stop(1) } } }
                let long = RelayedEvent(
                    conversationID: 3, id: EventID(messageID: 4, sequence: 2), kind: .token,
                    fields: Array("\"tail\":\"\(String(repeating: "y", count: 30_000))\"".utf8))
                var sent: [RelayMessage] = []
                for sequence in 1...300 {
                    var event = Self.event
                    event.id.sequence = Int64(sequence)
                    sender.publish(event)
                    sent.append(.event(event))
                    if sequence == 150 {
                        sender.publish(long)
                        sent.append(.event(long))
                    }
                }
                sender.publishTitle("event: title\n\n", conversationID: 7)
                sent.append(.title(7, frame: "event: title\n\n"))
                try await Self.waitUntil { relayed().count >= sent.count }
                #expect(relayed() == sent)
            }
        }
    }

    @Test("a live lease keeps a conversation to one reply on any instance; a run-out one is interrupted")
    func leases() async throws {
        try await StoreKind.postgres.withStores { stores in
            let ada = try await stores.user("ada@example.com")
            let conversation = try await stores.conversation(ada.id)
            let first = try await stores.chats.beginExchange(
                conversationID: conversation.id, userContent: "one", requestID: nil, model: "m")
            await #expect(throws: StoreError.replyRunning) {
                _ = try await stores.chats.beginExchange(
                    conversationID: conversation.id, userContent: "two", requestID: nil, model: "m")
            }
            // Another instance starting leaves a reply whose lease is live alone.
            #expect(try await stores.chats.interruptUnfinishedReplies() == 0)
            try await stores.execute("UPDATE reply_leases SET expires_at = now() - interval '1 second'")
            #expect(try await stores.chats.interruptUnfinishedReplies() == 1)
            #expect(
                try await stores.chats.message(id: first.assistantMessage.id, userID: ada.id)?.status == .interrupted)
            let second = try await stores.chats.beginExchange(
                conversationID: conversation.id, userContent: "two", requestID: nil, model: "m")
            // A reply that ends gives its lease back.
            try await stores.chats.finishReply(
                id: second.assistantMessage.id, outcome: ReplyOutcome(content: "ok", status: .complete, usage: Usage()))
            #expect(try await stores.count("SELECT COUNT(*) FROM reply_leases") == 0)
            // A conversation's reply whose lease ran out is ended by the next exchange there.
            let third = try await stores.chats.beginExchange(
                conversationID: conversation.id, userContent: "three", requestID: nil, model: "m")
            try await stores.execute("UPDATE reply_leases SET expires_at = now() - interval '1 second'")
            _ = try await stores.chats.beginExchange(
                conversationID: conversation.id, userContent: "four", requestID: nil, model: "m")
            #expect(
                try await stores.chats.message(id: third.assistantMessage.id, userID: ada.id)?.status == .interrupted)
        }
    }

    @Test("the relay renews its instance's leases, and ends a reply whose lease ran out with an interrupted done")
    func relayKeepsLeases() async throws {
        try await TestPostgres.shared.withDatabase { database in
            let stores = StoreSet(postgres: database)
            let ada = try await stores.accounts.createUser(email: "ada@example.com", passwordHash: "h", isAdmin: false)
            let conversation = try await stores.chat.createConversation(
                userID: ada.id, title: "t", model: "m", systemPrompt: "")
            let exchange = try await stores.chat.beginExchange(
                conversationID: conversation.id, userContent: "one", requestID: nil, model: "m")
            try await stores.chat.saveProgress([exchange.assistantMessage.id: ReplyProgress(content: "so far")])
            let heard = Heard()
            let relay = PostgresReplyRelay(storage: database, leaseInterval: .milliseconds(50))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await relay.run { heard.add($0) } }
                defer { group.cancelAll() }
                // Renewed: the lease stays live however long the reply runs.
                try await database.client.query("UPDATE reply_leases SET expires_at = now() + interval '50 ms'")
                try await Task.sleep(for: .milliseconds(300))
                #expect(
                    try await stores.chat.message(id: exchange.assistantMessage.id, userID: ada.id)?.status
                        == .streaming)
                // Another instance's reply (a lease this relay does not renew) is ended once its lease runs out.
                try await database.client.query(
                    "UPDATE reply_leases SET instance_id = \(UUID()), expires_at = now() + interval '100 ms'")
                try await Self.waitUntil { heard.messages.withLock { !$0.isEmpty } }
                guard case .event(let done) = heard.messages.withLock({ $0.first }) else {
                    Issue.record("no done was delivered")
                    return
                }
                #expect(done.kind == .done && done.id.messageID == exchange.assistantMessage.id)
                #expect(String(decoding: done.fields, as: UTF8.self).contains(#""status":"interrupted""#))
                let stored = try await stores.chat.message(id: exchange.assistantMessage.id, userID: ada.id)
                #expect(stored?.status == .interrupted && stored?.content == "so far")
            }
        }
    }

    /// Waits until `condition` holds, for at most 10 s (the relay's messages cross a real database).
    static func waitUntil(_ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while try await !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("the condition did not hold within 10 s")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// The messages a relay delivered, in order.
private final class Heard: Sendable {
    let messages = Mutex<[RelayMessage]>([])

    /// Records one.
    func add(_ message: RelayMessage) {
        messages.withLock { $0.append(message) }
    }
}
