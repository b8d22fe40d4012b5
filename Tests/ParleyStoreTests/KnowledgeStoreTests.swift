import Foundation
import GRDB
import ParleyCore
import Testing

@testable import ParleyStore

/// Knowledge collections in SQLite: each reachable by its owner alone, counting its documents, deleted with them (and
/// their bytes leaving the owner's storage), and attached to conversations and assistants only by their owner.
@Suite struct KnowledgeStoreTests {
    /// A text document for a collection.
    static func document(_ name: String, in collection: CollectionID, bytes: Int = 1_000) -> NewDocument {
        NewDocument(
            name: name, kind: .text, bytes: [UInt8](repeating: 0x61, count: bytes), place: .collection(collection))
    }

    @Test("a collection is its owner's alone: created, listed by name, counted, renamed and deleted by them only")
    func ownerScoped() async throws {
        try await StoreFixture.run { store in
            let knowledge = SQLiteKnowledgeStore(database: store.database)
            let documents = SQLiteDocumentStore(database: store.database)
            let alice = try await store.user("alice@example.com"), bob = try await store.user("bob@example.com")
            let zebra = try await knowledge.createCollection(userID: alice.id, name: "Zebra", description: "stripes")
            let apple = try await knowledge.createCollection(userID: alice.id, name: "apple", description: "")
            _ = try await documents.addDocument(Self.document("a.txt", in: zebra.id, bytes: 300), userID: alice.id)
            _ = try await documents.addDocument(Self.document("b.txt", in: zebra.id, bytes: 200), userID: alice.id)

            #expect(try await knowledge.collections(userID: alice.id).map(\.name) == ["apple", "Zebra"])
            #expect(try await knowledge.collections(userID: bob.id).isEmpty)
            let counted = try #require(try await knowledge.collection(id: zebra.id, userID: alice.id))
            #expect(counted.documentCount == 2 && counted.byteCount == 500 && counted.description == "stripes")
            #expect(try await knowledge.collection(id: apple.id, userID: alice.id)?.documentCount == 0)
            #expect(try await knowledge.collection(id: zebra.id, userID: bob.id) == nil)
            #expect(
                try await knowledge.documents(collectionID: zebra.id, userID: alice.id).map(\.name) == [
                    "a.txt", "b.txt",
                ])
            #expect(try await knowledge.documents(collectionID: zebra.id, userID: bob.id).isEmpty)

            await expectStoreError(.notFound) {
                _ = try await knowledge.updateCollection(id: zebra.id, userID: bob.id, name: "Mine", description: "")
            }
            await expectStoreError(.notFound) { try await knowledge.deleteCollection(id: zebra.id, userID: bob.id) }
            let renamed = try await knowledge.updateCollection(
                id: zebra.id, userID: alice.id, name: "Horses", description: "no stripes")
            #expect(renamed.name == "Horses" && renamed.description == "no stripes" && renamed.documentCount == 2)
            #expect(try await knowledge.collection(id: zebra.id, userID: alice.id)?.name == "Horses")
        }
    }

    @Test(
        "deleting a collection deletes its documents, their text and chunks, and takes their bytes off the owner's storage"
    )
    func deletionCascades() async throws {
        try await StoreFixture.run { store in
            let knowledge = SQLiteKnowledgeStore(database: store.database)
            let documents = SQLiteDocumentStore(database: store.database)
            let alice = try await store.user("alice@example.com")
            let kept = try await knowledge.createCollection(userID: alice.id, name: "Kept", description: "")
            let gone = try await knowledge.createCollection(userID: alice.id, name: "Gone", description: "")
            _ = try await documents.addDocument(Self.document("kept.txt", in: kept.id, bytes: 100), userID: alice.id)
            let read = try await documents.addDocument(
                Self.document("gone.txt", in: gone.id, bytes: 5_000), userID: alice.id)
            try await documents.saveReading(
                .read(pages: ["some text"], chunks: [DocumentChunk(ordinal: 0, page: 1, text: "some text")]),
                documentID: read.id)
            let storedBefore = try await store.count("SELECT stored_bytes FROM users WHERE id = ?", [alice.id])
            let chat = try await store.conversation(alice.id)
            try await knowledge.setCollections([gone.id, kept.id], conversationID: chat.id, userID: alice.id)

            try await knowledge.deleteCollection(id: gone.id, userID: alice.id)
            #expect(try await store.count("SELECT COUNT(*) FROM documents") == 1)
            #expect(try await store.count("SELECT COUNT(*) FROM document_chunks") == 0)
            #expect(try await store.count("SELECT COUNT(*) FROM document_pages") == 0)
            let storedAfter = try await store.count("SELECT stored_bytes FROM users WHERE id = ?", [alice.id])
            #expect(storedAfter <= storedBefore - 5_000 && storedAfter >= 100)
            #expect(try await knowledge.collectionIDs(conversationID: chat.id, userID: alice.id) == [kept.id])
            await expectStoreError(.notFound) { try await knowledge.deleteCollection(id: gone.id, userID: alice.id) }
        }
    }

    @Test("a conversation or an assistant gets only its owner's collections, and only its owner may set them")
    func attaching() async throws {
        try await StoreFixture.run { store in
            let knowledge = SQLiteKnowledgeStore(database: store.database)
            let alice = try await store.user("alice@example.com"), bob = try await store.user("bob@example.com")
            let mine = try await knowledge.createCollection(userID: alice.id, name: "Mine", description: "")
            let more = try await knowledge.createCollection(userID: alice.id, name: "More", description: "")
            let theirs = try await knowledge.createCollection(userID: bob.id, name: "Theirs", description: "")
            let chat = try await store.conversation(alice.id)

            try await knowledge.setCollections(
                [more.id, theirs.id, mine.id, more.id], conversationID: chat.id, userID: alice.id)
            #expect(try await knowledge.collectionIDs(conversationID: chat.id, userID: alice.id) == [mine.id, more.id])
            await expectStoreError(.notFound) {
                try await knowledge.setCollections([theirs.id], conversationID: chat.id, userID: bob.id)
            }
            await expectStoreError(.notFound) {
                _ = try await knowledge.collectionIDs(conversationID: chat.id, userID: bob.id)
            }
            try await knowledge.setCollections([], conversationID: chat.id, userID: alice.id)
            #expect(try await knowledge.collectionIDs(conversationID: chat.id, userID: alice.id).isEmpty)

            let assistant = try await SQLiteAssistantStore(database: store.database).createAssistant(
                Assistant(id: 0, authorID: alice.id, name: "Helper", model: "m"))
            try await knowledge.setCollections([theirs.id, mine.id], assistantID: assistant.id, authorID: alice.id)
            #expect(try await knowledge.collectionIDs(assistantID: assistant.id) == [mine.id])
            await expectStoreError(.notFound) {
                try await knowledge.setCollections([theirs.id], assistantID: assistant.id, authorID: bob.id)
            }
            #expect(try await knowledge.collectionIDs(assistantID: assistant.id) == [mine.id])
            try await knowledge.deleteCollection(id: mine.id, userID: alice.id)
            #expect(try await knowledge.collectionIDs(assistantID: assistant.id).isEmpty)
        }
    }
}
