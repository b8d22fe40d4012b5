import Foundation
import Logging
import ParleyCore
import Synchronization

/// Why an uploaded document was not taken.
public enum DocumentIntakeError: Error, Sendable, Equatable {
    /// Its name, size or type is not acceptable.
    case rejected(DocumentRejection)
    /// The store refused it (its place is not the user's, their storage is full) or failed.
    case store(StoreError)
    /// As many documents wait to be read as the queue holds; try again shortly.
    case busy
}

/// Takes uploaded documents: checks each one's name, size and type at once, stores it as `reading`, and reads its text
/// off the request path, at most `concurrency` at once with at most `queueLimit` waiting. `run()` does the reading
/// (first reading again what a restart left unread) until it is cancelled.
public final class DocumentIntake: Sendable {
    let store: any DocumentStore
    let extractor: DocumentExtractor
    let concurrency: Int
    let queueLimit: Int
    let logger: Logger
    private let jobs: AsyncStream<DocumentContent>
    private let input: AsyncStream<DocumentContent>.Continuation
    /// Documents queued and not yet started.
    private let queued = Atomic<Int>(0)
    /// Who waits for a document to be read, by document; nil once `run()` has ended and nothing more is read.
    private let waiters = Mutex<[DocumentID: [Waiter]]?>([:])

    /// A request waiting for a document, and the document as it was stored.
    private struct Waiter: Sendable {
        var document: Document
        var continuation: CheckedContinuation<Document, Never>
    }

    /// Creates the intake; nothing is read until `run()`.
    public init(
        store: any DocumentStore, extractor: DocumentExtractor, concurrency: Int, queueLimit: Int = 256,
        logger: Logger
    ) {
        self.store = store
        self.extractor = extractor
        self.concurrency = max(1, concurrency)
        self.queueLimit = queueLimit
        self.logger = logger
        (jobs, input) = AsyncStream.makeStream(of: DocumentContent.self)
    }

    /// The largest document taken, in bytes.
    public var maxBytes: Int { extractor.maxBytes }

    /// Checks and stores a document, queues it to be read, and returns it as `reading`.
    public func accept(name: String, bytes: [UInt8], place: DocumentPlace, userID: UserID)
        async throws(DocumentIntakeError) -> Document
    {
        let document = try await stored(name: name, bytes: bytes, place: place, userID: userID)
        enqueue(DocumentContent(document: document, bytes: bytes))
        return document
    }

    /// Checks and stores a document and waits until it is read: it comes back `ready` or `failed` (or still `reading`
    /// when the server began shutting down meanwhile).
    public func acceptAndRead(name: String, bytes: [UInt8], place: DocumentPlace, userID: UserID)
        async throws(DocumentIntakeError) -> Document
    {
        let document = try await stored(name: name, bytes: bytes, place: place, userID: userID)
        return await withCheckedContinuation { continuation in
            let waiting = waiters.withLock { waiters in
                guard waiters != nil else { return false }
                waiters?[document.id, default: []].append(Waiter(document: document, continuation: continuation))
                return true
            }
            if waiting {
                enqueue(DocumentContent(document: document, bytes: bytes))
            } else {
                continuation.resume(returning: document)
            }
        }
    }

    /// How long a document uploaded to a conversation may wait unsent before a start deletes it.
    public static let unsentLifetime: Duration = .seconds(24 * 3600)

    /// Reads queued documents, `concurrency` at once, until cancelled; documents a restart left `reading` go first,
    /// and those left unsent in a composer for `unsentLifetime` are deleted. Waiters still waiting when it ends get
    /// their documents as they are (`reading`, read again at the next start).
    public func run() async {
        do {
            let deleted = try await store.deleteUnsentDocuments(
                before: Date().addingTimeInterval(-(Self.unsentLifetime / .seconds(1))))
            if deleted > 0 { logger.info("deleted documents left unsent", metadata: ["count": "\(deleted)"]) }
        } catch {
            logger.error("deleting documents left unsent failed", metadata: ["error": "\(error)"])
        }
        do {
            for content in try await store.documentsToRead() { enqueue(content) }
        } catch {
            logger.error("listing the documents left unread failed", metadata: ["error": "\(error)"])
        }
        await withTaskCancellationHandler {
            await withTaskGroup(of: Void.self) { group in
                var running = 0
                for await content in jobs {
                    if running == concurrency {
                        await group.next()
                        running -= 1
                    }
                    group.addTask { await self.read(content) }
                    running += 1
                }
            }
        } onCancel: {
            input.finish()
        }
        let left = waiters.withLock { waiters in
            defer { waiters = nil }
            return waiters?.values.flatMap { $0 } ?? []
        }
        for waiter in left { waiter.continuation.resume(returning: waiter.document) }
    }

    /// Stores a checked document as `reading`, unless the queue is full.
    private func stored(name: String, bytes: [UInt8], place: DocumentPlace, userID: UserID)
        async throws(DocumentIntakeError) -> Document
    {
        let kind: DocumentKind
        do {
            kind = try extractor.check(name: name, bytes: bytes)
        } catch {
            throw .rejected(error)
        }
        guard queued.load(ordering: .relaxed) < queueLimit else { throw .busy }
        do {
            return try await store.addDocument(
                NewDocument(name: name, kind: kind, bytes: bytes, place: place), userID: userID)
        } catch {
            throw .store(error)
        }
    }

    /// Queues a document to read.
    private func enqueue(_ content: DocumentContent) {
        queued.add(1, ordering: .relaxed)
        if case .terminated = input.yield(content) { queued.subtract(1, ordering: .relaxed) }
    }

    /// Reads one document, saves what that gave, and tells whoever waits for it.
    private func read(_ content: DocumentContent) async {
        queued.subtract(1, ordering: .relaxed)
        var document = content.document
        let reading: DocumentReading
        do {
            let extracted = try await extractor.read(document.kind, name: document.name, bytes: content.bytes)
            reading = .read(pages: extracted.pages, chunks: extracted.chunks)
            document.status = .ready
            document.pageCount = extracted.pages.count
            document.tokenCount = extracted.pages.reduce(0) { $0 + ContextWindow.estimatedTokens($1) }
        } catch {
            reading = .failed(error.message)
            document.status = .failed
            document.failure = error.message
        }
        do {
            try await store.saveReading(reading, documentID: document.id)
        } catch {
            logger.error(
                "saving a document's text failed", metadata: ["document": "\(document.id)", "error": "\(error)"])
            document.status = .failed
            document.failure = "Parley could not save this document's text."
        }
        let waiting = waiters.withLock { $0?.removeValue(forKey: document.id) ?? [] }
        for waiter in waiting { waiter.continuation.resume(returning: document) }
    }
}
