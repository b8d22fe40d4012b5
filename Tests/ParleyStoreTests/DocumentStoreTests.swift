import Foundation
import GRDB
import ParleyCore
import Testing

@testable import ParleyStore

/// Documents are stored as `reading`, read into pages and indexed chunks, sent with a message once read, ranked for
/// replies, counted in their owner's storage, and never reached by another user.
@Suite struct DocumentStoreTests {
    /// A PDF-like document of `pages` pages, read: page `n` says "Page n is about topic n." and page 7 alone names
    /// the answer.
    static func readDocument(
        _ documents: SQLiteDocumentStore, userID: UserID, place: DocumentPlace, pages: Int = 10,
        kind: DocumentKind = .pdf
    ) async throws -> Document {
        let document = try await documents.addDocument(
            NewDocument(name: "report.pdf", kind: kind, bytes: Array("%PDF-1.4 stand-in".utf8), place: place),
            userID: userID)
        let texts = (1...pages).map { page in
            "Page \(page) is about topic \(page)." + (page == 7 ? " The launch code is zebra-quartz." : "")
                + String(repeating: " Filler words for the page.", count: 40)
        }
        let chunks = texts.enumerated().map { DocumentChunk(ordinal: $0, page: $0 + 1, text: $1) }
        try await documents.saveReading(.read(pages: texts, chunks: chunks), documentID: document.id)
        return try #require(try await documents.document(id: document.id, userID: userID))
    }

    @Test("a document is stored reading, then read with its pages, tokens and storage counted")
    func storedAndRead() async throws {
        try await StoreFixture.run { store in
            let documents = SQLiteDocumentStore(database: store.database)
            let alice = try await store.user("alice@example.com")
            let chat = try await store.conversation(alice.id)
            let stored = try await documents.addDocument(
                NewDocument(name: "notes.txt", kind: .text, bytes: Array("hello".utf8), place: .conversation(chat.id)),
                userID: alice.id)
            #expect(stored.status == .reading)
            #expect(try await documents.documentsToRead().map(\.document.id) == [stored.id])
            let before = try await store.accounts.storage(userID: alice.id).storedBytes
            try await documents.saveReading(
                .read(pages: ["hello"], chunks: [DocumentChunk(ordinal: 0, page: 1, text: "hello")]),
                documentID: stored.id)
            let read = try #require(try await documents.document(id: stored.id, userID: alice.id))
            #expect(read.status == .ready && read.pageCount == 1 && read.tokenCount == 2)
            #expect(try await store.accounts.storage(userID: alice.id).storedBytes == before + 10)
            #expect(try await documents.documentsToRead().isEmpty)
            let failed = try await documents.addDocument(
                NewDocument(name: "x.pdf", kind: .pdf, bytes: [1], place: .conversation(chat.id)), userID: alice.id)
            try await documents.saveReading(.failed("damaged"), documentID: failed.id)
            let refused = try #require(try await documents.document(id: failed.id, userID: alice.id))
            #expect(refused.status == .failed && refused.failure == "damaged")
            try await store.chats.deleteConversation(id: chat.id, userID: alice.id)
            #expect(try await store.count("SELECT COUNT(*) FROM documents") == 0)
            #expect(try await store.count("SELECT COUNT(*) FROM document_chunks_fts") == 0)
            #expect(try await store.accounts.storage(userID: alice.id).storedBytes == 0)
        }
    }

    @Test("another user can neither add to, read, nor delete someone's documents")
    func ownerOnly() async throws {
        try await StoreFixture.run { store in
            let documents = SQLiteDocumentStore(database: store.database)
            let alice = try await store.user("alice@example.com"), mallory = try await store.user("m@example.com")
            let chat = try await store.conversation(alice.id)
            await #expect(throws: StoreError.notFound) {
                try await documents.addDocument(
                    NewDocument(name: "a.txt", kind: .text, bytes: [65], place: .conversation(chat.id)),
                    userID: mallory.id)
            }
            let document = try await Self.readDocument(documents, userID: alice.id, place: .conversation(chat.id))
            #expect(try await documents.document(id: document.id, userID: mallory.id) == nil)
            #expect(try await documents.documentContent(id: document.id, userID: mallory.id) == nil)
            await #expect(throws: StoreError.notFound) {
                try await documents.deleteDocument(id: document.id, userID: mallory.id)
            }
            #expect(try await documents.document(id: document.id, userID: alice.id) != nil)
        }
    }

    @Test("a read document goes with one message only, shows in it and in the reply's history, and stays")
    func sentWithAMessage() async throws {
        try await StoreFixture.run { store in
            let documents = SQLiteDocumentStore(database: store.database)
            let alice = try await store.user("alice@example.com")
            let chat = try await store.conversation(alice.id)
            let document = try await Self.readDocument(documents, userID: alice.id, place: .conversation(chat.id))
            let reading = try await documents.addDocument(
                NewDocument(name: "b.txt", kind: .text, bytes: [66], place: .conversation(chat.id)), userID: alice.id)
            await #expect(throws: StoreError.notFound) {
                try await store.chats.beginExchange(
                    conversationID: chat.id, userContent: "q", images: [], documents: [reading.id], requestID: nil,
                    model: "m", anchor: .currentLeaf)
            }
            #expect(try await store.count("SELECT COUNT(*) FROM messages") == 0)
            let exchange = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: "q", images: [], documents: [document.id], requestID: nil,
                model: "m", anchor: .currentLeaf)
            #expect(exchange.history.last?.documentIDs == [document.id])
            let question = try #require(try await store.chats.message(id: exchange.userMessage!.id, userID: alice.id))
            #expect(question.documents.map(\.id) == [document.id])
            try await store.chats.finishReply(
                id: exchange.assistantMessage.id,
                outcome: ReplyOutcome(
                    content: "see [1]", status: .complete, usage: Usage(),
                    sources: [
                        DocumentSource(number: 1, documentID: document.id, name: "report.pdf", kind: .pdf, page: 7)
                    ],
                    documentTokens: 42))
            let reply = try #require(try await store.chats.message(id: exchange.assistantMessage.id, userID: alice.id))
            #expect(reply.sources.map(\.page) == [7] && reply.documentTokens == 42)
            await #expect(throws: StoreError.notFound) {
                try await store.chats.beginExchange(
                    conversationID: chat.id, userContent: "again", images: [], documents: [document.id],
                    requestID: nil, model: "m", anchor: .currentLeaf)
            }
            await #expect(throws: StoreError.notFound) {
                try await documents.deleteDocument(id: document.id, userID: alice.id)
            }
        }
    }

    @Test("documents left unsent in a composer are deleted after a while; sent ones and a collection's stay")
    func unsentDocumentsGo() async throws {
        try await StoreFixture.run { store in
            let documents = SQLiteDocumentStore(database: store.database)
            let alice = try await store.user("alice@example.com")
            let chat = try await store.conversation(alice.id)
            let sent = try await Self.readDocument(documents, userID: alice.id, place: .conversation(chat.id))
            _ = try await store.chats.beginExchange(
                conversationID: chat.id, userContent: "q", images: [], documents: [sent.id], requestID: nil,
                model: "m", anchor: .currentLeaf)
            let unsent = try await Self.readDocument(documents, userID: alice.id, place: .conversation(chat.id))
            let collection = try await SQLiteKnowledgeStore(database: store.database).createCollection(
                userID: alice.id, name: "Kept", description: "")
            let kept = try await Self.readDocument(documents, userID: alice.id, place: .collection(collection.id))
            #expect(try await documents.deleteUnsentDocuments(before: Date().addingTimeInterval(-60)) == 0)
            #expect(try await documents.deleteUnsentDocuments(before: Date().addingTimeInterval(60)) == 1)
            #expect(try await documents.document(id: unsent.id, userID: alice.id) == nil)
            #expect(try await documents.document(id: sent.id, userID: alice.id) != nil)
            #expect(try await documents.document(id: kept.id, userID: alice.id) != nil)
        }
    }

    @Test("documents that fit are sent whole, a page a source; others by their best chunks for the question")
    func passages() async throws {
        try await StoreFixture.run { store in
            let documents = SQLiteDocumentStore(database: store.database)
            let alice = try await store.user("alice@example.com")
            let chat = try await store.conversation(alice.id)
            let document = try await Self.readDocument(documents, userID: alice.id, place: .conversation(chat.id))
            let whole = try await documents.passages(
                for: SourceQuery(
                    documentIDs: [document.id], collectionIDs: [], question: "launch code", budget: 100_000))
            #expect(whole.map(\.source.page) == Array(1...10).map(Optional.some))
            #expect(whole.map(\.source.number) == Array(1...10))
            let ranked = try await documents.passages(
                for: SourceQuery(
                    documentIDs: [document.id], collectionIDs: [], question: "What is the launch code?", budget: 400))
            #expect(ranked.map(\.source.page) == [7])
            #expect(ranked.first?.text.contains("zebra-quartz") == true)
            #expect(ranked.first?.source.path == "/documents/\(document.id)#page=7")
            for hostile in ["\"NEAR(", "text:*", "- OR AND )(", "", "   "] {
                let found = try await documents.passages(
                    for: SourceQuery(documentIDs: [document.id], collectionIDs: [], question: hostile, budget: 400))
                #expect(found.count == 1, "question \(hostile)")
            }
            #expect(
                try await documents.passages(
                    for: SourceQuery(documentIDs: [], collectionIDs: [], question: "launch", budget: 200)
                ).isEmpty)
        }
    }
}
