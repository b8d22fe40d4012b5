import GRDB
import Synchronization

/// The store's one way to write: the writes that wait while another transaction commits share the next transaction
/// (group commit), each in its own savepoint, so that a busy server writes a page that several writes changed, and an
/// FTS5 segment for several replies, once instead of once each. A write that finds the writer idle starts at once,
/// alone. A write that throws is rolled back to its savepoint and fails alone; the others in its transaction still
/// commit. When SQLite rolls back the whole transaction itself (a full disk, an I/O error), every write that ran in it
/// fails with that error, and the ones not yet run get a transaction of their own.
public final class GroupCommitWriter: Sendable {
    /// The most writes one transaction takes, so that none waits behind an unbounded batch.
    static let maximumBatch = 64

    /// A caller's write waiting for its turn.
    private struct PendingWrite: Sendable {
        /// Runs the write in a savepoint of the open transaction; returns its error, or how to answer its caller once
        /// the transaction has committed.
        let run: @Sendable (Database) -> Result<@Sendable () -> Void, any Error>
        /// Answers the caller with an error.
        let fail: @Sendable (any Error) -> Void
    }

    private struct State {
        var pending: [PendingWrite] = []
        /// Whether a drain is running (or queued) on GRDB's writer, which takes every write submitted meanwhile.
        var isDraining = false
    }

    private let pool: DatabasePool
    private let state = Mutex(State())

    /// A writer over `pool`'s writer connection.
    init(pool: DatabasePool) {
        self.pool = pool
    }

    /// Runs `body` in a transaction, possibly shared with other writes, and returns its value once that transaction
    /// has committed. Throws `CancellationError` when the task is already cancelled, as GRDB's `write` does.
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try Task.checkCancellation()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let write = PendingWrite(
                run: { db in
                    Result {
                        var value: T?
                        try db.inSavepoint {
                            value = try body(db)
                            return .commit
                        }
                        return { [value] in continuation.resume(returning: value!) }
                    }
                },
                fail: { continuation.resume(throwing: $0) })
            let startsDrain = state.withLock { state in
                state.pending.append(write)
                defer { state.isDraining = true }
                return !state.isDraining
            }
            if startsDrain { pool.asyncWriteWithoutTransaction { db in self.drain(db) } }
        }
    }

    /// How many writes wait for a transaction (not counting those of the transaction running): `/metrics` shows it.
    public var waitingWrites: Int {
        state.withLock { $0.pending.count }
    }

    /// Commits the pending writes, a batch a transaction, until none is left.
    private func drain(_ db: Database) {
        while var batch = nextBatch() {
            while !batch.isEmpty { batch = commit(batch, in: db) }
        }
    }

    /// Takes up to `maximumBatch` pending writes; when none is pending, ends the drain and returns nil.
    private func nextBatch() -> ArraySlice<PendingWrite>? {
        state.withLock { state in
            guard !state.pending.isEmpty else {
                state.isDraining = false
                return nil
            }
            let count = min(state.pending.count, Self.maximumBatch)
            defer { state.pending.removeFirst(count) }
            return state.pending[..<count]
        }
    }

    /// Runs `batch` in one transaction and answers the callers of the writes that ran; returns the writes left unrun
    /// because SQLite rolled the transaction back itself.
    private func commit(_ batch: ArraySlice<PendingWrite>, in db: Database) -> ArraySlice<PendingWrite> {
        var rest = batch
        var ran: [(write: PendingWrite, outcome: Result<@Sendable () -> Void, any Error>)] = []
        do {
            try db.inTransaction {
                while let write = rest.popFirst() {
                    let outcome = write.run(db)
                    ran.append((write, outcome))
                    if case .failure(let error) = outcome, !db.isInsideTransaction { throw error }
                }
                return .commit
            }
        } catch {
            for (write, _) in ran { write.fail(error) }
            if ran.isEmpty {
                // The transaction could not even begin: nothing would go better a second time.
                for write in rest { write.fail(error) }
                return []
            }
            return rest
        }
        for (write, outcome) in ran {
            switch outcome {
            case .success(let answer): answer()
            case .failure(let error): write.fail(error)
            }
        }
        return rest
    }
}
