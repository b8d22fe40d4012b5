import Foundation
import ParleyCore
import Testing

/// Documents, their reading and retrieval, and knowledge collections, the same on every database.
@Suite struct DocumentAndKnowledgeStoreTests {
    /// A text document of `text` to add to `place`.
    static func text(_ name: String, _ text: String, in place: DocumentPlace) -> NewDocument {
        NewDocument(name: name, kind: .text, bytes: Array(text.utf8), place: place)
    }

    @Test(
        "a document is stored reading, read with its pages and storage counted, and its owner's alone",
        arguments: StoreKind.allCases)
    func storedAndRead(kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let ada = try await stores.accounts.createUser(email: "ada@example.com", passwordHash: "h", isAdmin: false)
            let eve = try await stores.accounts.createUser(email: "eve@example.com", passwordHash: "h", isAdmin: false)
            try await StoreKind.conversation(100, of: ada.id, stores)
            let added = try await stores.documents.addDocument(
                Self.text("notes.txt", "0123456789", in: .conversation(100)), userID: ada.id)
            #expect(added.status == .reading && added.byteCount == 10 && added.name == "notes.txt")
            await #expect(throws: StoreError.notFound) {
                _ = try await stores.documents.addDocument(Self.text("x", "x", in: .conversation(100)), userID: eve.id)
            }
            #expect(try await stores.documents.documentsToRead().map(\.document.id) == [added.id])
            #expect(try await stores.admin.storage(userID: ada.id).storedBytes == 10)

            try await stores.documents.saveReading(
                .read(
                    pages: ["First page", "Second page"],
                    chunks: [DocumentChunk(ordinal: 0, page: 1, text: "First page")]),
                documentID: added.id)
            let read = try #require(try await stores.documents.document(id: added.id, userID: ada.id))
            #expect(read.status == .ready && read.pageCount == 2 && read.tokenCount > 0)
            #expect(try await stores.documents.documentsToRead().isEmpty)
            #expect(try await stores.admin.storage(userID: ada.id).storedBytes == 10 + 10 + 11 + 10)
            #expect(
                try await stores.documents.documentContent(id: added.id, userID: ada.id)?.bytes
                    == Array("0123456789".utf8))
            #expect(try await stores.documents.document(id: added.id, userID: eve.id) == nil)
            #expect(try await stores.documents.documentContent(id: added.id, userID: eve.id) == nil)

            let failing = try await stores.documents.addDocument(
                Self.text("bad.txt", "?", in: .conversation(100)), userID: ada.id)
            try await stores.documents.saveReading(.failed("no text"), documentID: failing.id)
            let failed = try await stores.documents.document(id: failing.id, userID: ada.id)
            #expect(failed?.status == .failed && failed?.failure == "no text")

            await #expect(throws: StoreError.notFound) {
                try await stores.documents.deleteDocument(id: added.id, userID: eve.id)
            }
            try await stores.documents.deleteDocument(id: added.id, userID: ada.id)
            #expect(try await stores.documents.document(id: added.id, userID: ada.id) == nil)
            #expect(try await stores.admin.storage(userID: ada.id).storedBytes == 1)
            #expect(try await stores.documents.deleteUnsentDocuments(before: Date().addingTimeInterval(60)) == 1)
            #expect(try await stores.admin.storage(userID: ada.id).storedBytes == 0)
        }
    }

    @Test("a document past its owner's quota is refused and nothing of it is kept", arguments: StoreKind.allCases)
    func quota(kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let ada = try await stores.accounts.createUser(email: "ada@example.com", passwordHash: "h", isAdmin: false)
            try await StoreKind.conversation(100, of: ada.id, stores)
            try await stores.admin.setStorageQuota(15, userID: ada.id)
            _ = try await stores.documents.addDocument(
                Self.text("a", "0123456789", in: .conversation(100)), userID: ada.id)
            await #expect(throws: StoreError.storageFull(StorageStatus(storedBytes: 20, quotaBytes: 15))) {
                _ = try await stores.documents.addDocument(
                    Self.text("b", "0123456789", in: .conversation(100)), userID: ada.id)
            }
            #expect(try await stores.admin.storage(userID: ada.id).storedBytes == 10)
            #expect(try await stores.documents.documentsToRead().count == 1)
        }
    }

    @Test(
        "collections are their owner's: listed by name with their documents counted, renamed, attached, and deleted with their documents",
        arguments: StoreKind.allCases)
    func collections(kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let ada = try await stores.accounts.createUser(email: "ada@example.com", passwordHash: "h", isAdmin: false)
            let eve = try await stores.accounts.createUser(email: "eve@example.com", passwordHash: "h", isAdmin: false)
            let zoo = try await stores.knowledge.createCollection(userID: ada.id, name: "zoo", description: "")
            let apes = try await stores.knowledge.createCollection(userID: ada.id, name: "Apes", description: "d")
            let eves = try await stores.knowledge.createCollection(userID: eve.id, name: "Eve's", description: "")
            _ = try await stores.documents.addDocument(
                Self.text("a.txt", "abc", in: .collection(apes.id)), userID: ada.id)
            await #expect(throws: StoreError.notFound) {
                _ = try await stores.documents.addDocument(
                    Self.text("x", "x", in: .collection(apes.id)), userID: eve.id)
            }
            let listed = try await stores.knowledge.collections(userID: ada.id)
            #expect(
                listed.map(\.name) == ["Apes", "zoo"] && listed.first?.documentCount == 1
                    && listed.first?.byteCount == 3)
            #expect(
                try await stores.knowledge.documents(collectionID: apes.id, userID: ada.id).map(\.name) == ["a.txt"])
            #expect(try await stores.knowledge.documents(collectionID: apes.id, userID: eve.id).isEmpty)
            let renamed = try await stores.knowledge.updateCollection(
                id: zoo.id, userID: ada.id, name: "Zoo", description: "animals")
            #expect(renamed.name == "Zoo" && renamed.description == "animals")
            await #expect(throws: StoreError.notFound) {
                _ = try await stores.knowledge.updateCollection(id: zoo.id, userID: eve.id, name: "x", description: "")
            }
            #expect(try await stores.knowledge.collection(id: zoo.id, userID: eve.id) == nil)

            try await StoreKind.conversation(100, of: ada.id, stores)
            try await stores.knowledge.setCollections([zoo.id, eves.id, 999], conversationID: 100, userID: ada.id)
            #expect(try await stores.knowledge.collectionIDs(conversationID: 100, userID: ada.id) == [zoo.id])
            await #expect(throws: StoreError.notFound) {
                _ = try await stores.knowledge.collectionIDs(conversationID: 100, userID: eve.id)
            }
            await #expect(throws: StoreError.notFound) {
                try await stores.knowledge.setCollections([eves.id], conversationID: 100, userID: eve.id)
            }
            let helper = try await stores.assistants.createAssistant(
                Assistant(id: 0, authorID: ada.id, name: "H", model: "m"))
            try await stores.knowledge.setCollections([apes.id, eves.id], assistantID: helper.id, authorID: ada.id)
            #expect(try await stores.knowledge.collectionIDs(assistantID: helper.id) == [apes.id])
            await #expect(throws: StoreError.notFound) {
                try await stores.knowledge.setCollections([eves.id], assistantID: helper.id, authorID: eve.id)
            }

            await #expect(throws: StoreError.notFound) {
                try await stores.knowledge.deleteCollection(id: apes.id, userID: eve.id)
            }
            try await stores.knowledge.deleteCollection(id: apes.id, userID: ada.id)
            #expect(try await stores.knowledge.collections(userID: ada.id).map(\.name) == ["Zoo"])
            #expect(try await stores.admin.storage(userID: ada.id).storedBytes == 0)
            #expect(try await stores.knowledge.collectionIDs(assistantID: helper.id).isEmpty)
        }
    }

    @Test(
        "documents that fit go whole, a page a source; others by the chunks that best match the question; hostile questions are only words",
        arguments: StoreKind.allCases)
    func passages(kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let ada = try await stores.accounts.createUser(email: "ada@example.com", passwordHash: "h", isAdmin: false)
            try await StoreKind.conversation(100, of: ada.id, stores)
            let report = try await stores.documents.addDocument(
                NewDocument(name: "report.pdf", kind: .pdf, bytes: Array("%PDF".utf8), place: .conversation(100)),
                userID: ada.id)
            let pages = (1...10).map { page in
                page == 7
                    ? "The turbine inspection found corrosion on blade four."
                    : "Page \(page) describes the weather and the travel of the crew in general terms."
            }
            try await stores.documents.saveReading(
                .read(
                    pages: pages,
                    chunks: pages.enumerated().map { DocumentChunk(ordinal: $0, page: $0 + 1, text: $1) }),
                documentID: report.id)
            let whole = try await stores.documents.passages(
                for: SourceQuery(documentIDs: [report.id], collectionIDs: [], question: "corrosion", budget: 10_000))
            #expect(whole.map(\.source.page) == (1...10).map { $0 })
            #expect(whole.map(\.source.number) == (1...10).map { $0 })

            let ranked = try await stores.documents.passages(
                for: SourceQuery(
                    documentIDs: [report.id], collectionIDs: [], question: "What corrosion did the turbine show?",
                    budget: 30))
            #expect(ranked.first?.source.page == 7 && ranked.first?.source.number == 1)
            for hostile in ["' | ! & :* ( \" \\", "corrosion' OR 1=1 --", "NEAR(a b) AND -x *"] {
                _ = try await stores.documents.passages(
                    for: SourceQuery(documentIDs: [report.id], collectionIDs: [], question: hostile, budget: 30))
            }
            let unmatched = try await stores.documents.passages(
                for: SourceQuery(documentIDs: [report.id], collectionIDs: [], question: "zebra", budget: 30))
            #expect(unmatched.first?.source.page == 1)

            let shelf = try await stores.knowledge.createCollection(userID: ada.id, name: "Shelf", description: "")
            let manual = try await stores.documents.addDocument(
                Self.text("manual.txt", "m", in: .collection(shelf.id)), userID: ada.id)
            try await stores.documents.saveReading(
                .read(
                    pages: ["Blade four manual"],
                    chunks: [DocumentChunk(ordinal: 0, page: 1, text: "Blade four manual")]),
                documentID: manual.id)
            #expect(
                try await stores.documents.passages(
                    for: SourceQuery(
                        documentIDs: [], collectionIDs: [], knowledgeOf: 100, question: "blade", budget: 100)
                ).isEmpty)
            try await stores.knowledge.setCollections([shelf.id], conversationID: 100, userID: ada.id)
            let known = try await stores.documents.passages(
                for: SourceQuery(documentIDs: [], collectionIDs: [], knowledgeOf: 100, question: "blade", budget: 100))
            #expect(known.map(\.source.name) == ["manual.txt"] && known.first?.source.page == nil)
        }
    }
}
