import GRDB
import GRDBSQLite
import Synchronization

/// Runs SQLite's WAL checkpoints on a connection of its own instead of on the writer. With SQLite's automatic
/// checkpoints, the commit that takes the WAL past 1,000 pages copies them into the database file and syncs it on the
/// writer's thread, and every write queued behind that commit waits for it (at 500 streams, a send's first write up to
/// 20 ms at p99). Here the writer's WAL hook only asks for a checkpoint once the WAL holds `threshold` pages; a PASSIVE
/// checkpoint then runs on this connection's own queue, one at a time, and blocks neither the writer nor the readers.
final class WALCheckpointer: Sendable {
    /// The WAL size, in pages, past which a commit asks for a checkpoint (SQLite's own default).
    static let threshold: Int32 = 1000

    private let connection: DatabaseQueue
    private let isCheckpointing = Atomic<Bool>(false)
    /// Whether `detach()` has let go of the hook's reference (the database value may be copied and closed twice).
    private let isDetached = Atomic<Bool>(false)

    /// A checkpointer of the WAL database at `path` (already in WAL mode).
    init(path: String) throws {
        connection = try DatabaseQueue(path: path)
    }

    /// Turns the automatic checkpoints of the writer connection `db` off and hooks its commits to this checkpointer,
    /// which stays alive until `detach()` (the hook holds it).
    func attach(to db: Database) throws {
        try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        sqlite3_wal_hook(db.sqliteConnection, walHook, Unmanaged.passRetained(self).toOpaque())
    }

    /// Closes the checkpoint connection and lets go of the hook's reference, once however often it is called; call it
    /// once the writer connection is closed.
    func detach() throws {
        try connection.close()
        guard isDetached.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        Unmanaged.passUnretained(self).release()
    }

    /// The writer's commit left `pages` pages in the WAL: past the threshold, a checkpoint starts.
    fileprivate func committed(walPages pages: Int32) {
        if pages >= Self.threshold { checkpoint() }
    }

    /// Starts a PASSIVE checkpoint on the checkpoint connection's queue, unless one is running.
    private func checkpoint() {
        guard
            isCheckpointing.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        connection.asyncWriteWithoutTransaction { db in
            // A failed checkpoint leaves the WAL to the next one; the WAL itself is durable.
            _ = try? db.checkpoint(.passive)
            self.isCheckpointing.store(false, ordering: .releasing)
        }
    }
}

/// SQLite's WAL hook on the writer connection: `context` is the `WALCheckpointer` that `attach` retained.
private func walHook(
    _ context: UnsafeMutableRawPointer?, _ db: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ pages: Int32
) -> Int32 {
    if let context { Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(walPages: pages) }
    return SQLITE_OK
}
