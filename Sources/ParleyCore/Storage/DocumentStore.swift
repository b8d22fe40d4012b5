import Foundation

/// Documents: stored at upload as `reading`, read off the request path, and ranked for replies; always scoped by their
/// owner.
public protocol DocumentStore: Sendable {
    /// Stores an uploaded document as `reading`, in one of the user's conversations or collections (`.notFound` when
    /// the place is not theirs; `.storageFull` past their quota).
    func addDocument(_ document: NewDocument, userID: UserID) async throws(StoreError) -> Document
    /// Saves what reading a document gave: its pages and indexed chunks (`ready`), or why it failed (`failed`).
    func saveReading(_ reading: DocumentReading, documentID: DocumentID) async throws(StoreError)
    /// One of the user's documents.
    func document(id: DocumentID, userID: UserID) async throws(StoreError) -> Document?
    /// One of the user's documents with its original bytes.
    func documentContent(id: DocumentID, userID: UserID) async throws(StoreError) -> DocumentContent?
    /// Deletes one of the user's documents that no message has been sent with (waiting in a composer, or in a
    /// collection); `.notFound` otherwise.
    func deleteDocument(id: DocumentID, userID: UserID) async throws(StoreError)
    /// Deletes the documents uploaded to conversations before `date` and never sent (a composer left with them);
    /// returns how many.
    func deleteUnsentDocuments(before date: Date) async throws(StoreError) -> Int
    /// The documents still `reading` (left so by a restart), with their bytes, to read again.
    func documentsToRead() async throws(StoreError) -> [DocumentContent]
    /// The passages a reply is sent, numbered from 1: the documents whole (a source a page) when all of them fit the
    /// budget, else their chunks that best match the question (BM25), best first, as many as fit.
    func passages(for query: SourceQuery) async throws(StoreError) -> [DocumentPassage]
}
