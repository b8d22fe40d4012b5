import GRDB

/// The two ways the store reads. Neither keeps a reader connection across a suspension, so a `lookup` waiting for a
/// free reader always waits for code that is running, never for a task that needs the waiting thread to resume.
extension DatabasePool {
    /// A short read (indexed rows, a bounded page) run on the calling thread. An awaited GRDB read costs two thread
    /// switches, a hop to a reader's queue and one back, which take longer than the query itself: about 0.1–0.3 ms
    /// each on the path of a request.
    func lookup<T>(_ body: (Database) throws -> T) throws -> T {
        try read(body)
    }

    /// A read that may take a while (a search, an export, a dashboard over every message), run on one of GRDB's
    /// reader queues so that request threads go on meanwhile; the reader is returned as soon as `body` has run.
    func scan<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            asyncRead { database in
                continuation.resume(with: Result { try body(database.get()) })
            }
        }
    }
}
