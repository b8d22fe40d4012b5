import Foundation
import Logging
import ParleyCopy
import ParleyCore
import ParleyPostgres
import ParleyStore
import TestDatabases
import Testing

/// `parley migrate --from-sqlite`: an SQLite database of every kind of row, copied into an empty PostgreSQL one.
@Suite struct SQLiteToPostgresTests {
    @Test(
        "every row is copied with its id, the stores read it back the same, new rows get new ids, and a database that holds anything is refused"
    )
    func copiesEverything() async throws {
        try await StoreFixture.run { sqlite in
            let source = StoreKind.sqliteStores(sqlite)
            let alice = try await source.accounts.createUser(
                email: "alice@example.com", passwordHash: "h", isAdmin: true)
            let bob = try await source.accounts.createUser(email: "bob@example.com", passwordHash: "h", isAdmin: false)
            try await source.accounts.createSession(
                Session(id: "s1", userID: alice.id, expiresAt: Date().addingTimeInterval(3600)), origin: .unknown)
            let chat = try await source.conversation(alice.id, title: "Lisbon trip")
            let image = try AttachmentStoreTests.image()
            let exchange = try await source.chats.beginExchange(
                conversationID: chat.id, userContent: "Plan a trip to Lisbon", images: [image], requestID: "r1",
                model: "m")
            try await source.chats.finishReply(
                id: exchange.assistantMessage.id,
                outcome: ReplyOutcome(
                    content: "Crème brûlée in Lisbon", reasoning: "thinking", status: .complete,
                    usage: Usage(promptTokens: 10, completionTokens: 20),
                    pricing: ReplyPricing(modelID: "m", providerID: "p", listRates: TokenRates(input: 1, output: 2))))
            let staff = try await source.groups.createGroup(name: "Staff")
            try await source.groups.addMember(userID: bob.id, groupID: staff.id)
            let shelf = try await source.knowledge.createCollection(userID: alice.id, name: "Shelf", description: "")
            _ = try await source.documents.addDocument(
                NewDocument(name: "a.txt", kind: .text, bytes: Array("notes".utf8), place: .collection(shelf.id)),
                userID: alice.id)
            try await source.knowledge.setCollections([shelf.id], conversationID: chat.id, userID: alice.id)
            let storedBefore = try await source.admin.storage(userID: alice.id).storedBytes

            try await TestPostgres.shared.withDatabase { postgres in
                let counts = try await SQLiteToPostgres.copy(
                    sqlite.database, into: postgres, logger: Logger(label: "t"))
                #expect(counts.first { $0.table == "messages" }?.rows == 2)
                #expect(counts.first { $0.table == "attachments" }?.rows == 1)
                let target = StoreSet(postgres: postgres)
                #expect(try await target.accounts.user(email: "alice@example.com") == alice)
                #expect(try await target.accounts.session(id: "s1", now: Date())?.userID == alice.id)
                #expect(try await target.accounts.storage(userID: alice.id).storedBytes == storedBefore)
                let copied = try await target.chat.messages(
                    conversationID: chat.id, userID: alice.id, afterID: nil, limit: 10
                ).items
                let original = try await source.chats.messages(
                    conversationID: chat.id, userID: alice.id, afterID: nil, limit: 10
                ).items
                #expect(copied == original)
                #expect(try await target.chat.conversation(id: chat.id, userID: alice.id)?.usesKnowledge == true)
                #expect(
                    try await target.chat.search(userID: alice.id, text: "creme", limit: 5).map(\.messageID) == [
                        exchange.assistantMessage.id
                    ])
                #expect(try await target.groups.members(groupID: staff.id) == [bob])
                #expect(try await target.chat.attachment(id: 1, userID: alice.id)?.bytes == image.bytes)
                let newer = try await target.chat.createConversation(
                    userID: bob.id, title: "New", model: "m", systemPrompt: "")
                #expect(newer.id > chat.id)

                await #expect(throws: SQLiteToPostgres.Failure.self) {
                    _ = try await SQLiteToPostgres.copy(sqlite.database, into: postgres, logger: Logger(label: "t"))
                }
                #expect(try await target.chat.conversations(userID: alice.id, before: nil, limit: 10).items.count == 1)
            }
        }
    }
}
