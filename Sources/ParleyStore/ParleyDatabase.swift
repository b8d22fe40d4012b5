import Foundation
import GRDB
import ParleyCore

/// The one SQLite file that holds all of Parley's state: opened in WAL mode with a busy timeout, and migrated.
public struct ParleyDatabase: Sendable {
    /// The connection pool: many readers, one writer.
    public let pool: DatabasePool
    /// Every write of the stores goes through it, so that writes waiting at the same time share a transaction.
    public let writer: GroupCommitWriter
    private let checkpointer: WALCheckpointer
    /// The data folder and database files whose group or other permissions opening took away (see
    /// `DataFolderPermissions`), for the server to log.
    public let tightenedPermissions: [String]

    /// Opens (creating if needed) `parley.sqlite` in `directory`, readable by its owner alone, and brings its schema
    /// up to date.
    public init(directory: String) throws(StoreError) {
        do {
            tightenedPermissions = try DataFolderPermissions.secure(directory)
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            configuration.maximumReaderCount = 8
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
            let path = (directory as NSString).appendingPathComponent("parley.sqlite")
            pool = try DatabasePool(path: path, configuration: configuration)
            try Migrations.migrator.migrate(pool)
            writer = GroupCommitWriter(pool: pool)
            let checkpointer = try WALCheckpointer(path: path)
            try pool.writeWithoutTransaction { try checkpointer.attach(to: $0) }
            self.checkpointer = checkpointer
        } catch let error as DatabaseError
            where error.resultCode == .SQLITE_FULL
            || (error.resultCode == .SQLITE_IOERR && Self.hasNoFreeSpace(directory))
        {
            // A full disk fails the open as SQLITE_FULL, or as an I/O error when the shared-memory file cannot grow.
            throw StoreError.diskFull
        } catch {
            throw StoreError.database("opening the database failed: \(error)")
        }
    }

    /// Whether the filesystem holding `directory` has no free space left.
    private static func hasNoFreeSpace(_ directory: String) -> Bool {
        var stats = statvfs()
        return statvfs(directory, &stats) == 0 && stats.f_bavail == 0
    }

    /// Whether the database answers a trivial query.
    public func ping() async -> Bool {
        (try? pool.lookup { db in try Int.fetchOne(db, sql: "SELECT 1") }) == 1
    }

    /// Copies the whole database into a new file at `path` with SQLite's online backup API: a consistent snapshot,
    /// taken while the server keeps reading and writing, readable by its owner alone (0600).
    public func backup(to path: String) async throws(StoreError) {
        do {
            try DataFolderPermissions.createPrivateFile(path, exclusive: true)
        } catch POSIXError.EEXIST {
            throw StoreError.database("\(path) already exists; a backup never overwrites a file")
        } catch {
            throw StoreError.database("the backup to \(path) failed: \(error)")
        }
        do {
            let destination = try DatabaseQueue(path: path)
            try pool.backup(to: destination)
            try destination.close()
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw StoreError.database("the backup to \(path) failed: \(error)")
        }
    }

    /// Closes every connection, checkpointing the write-ahead log into the database file.
    public func close() throws(StoreError) {
        do {
            try pool.close()
            try checkpointer.detach()
        } catch {
            throw StoreError.database("closing the database failed: \(error)")
        }
    }

    /// The result of SQLite's `PRAGMA integrity_check` ("ok" when healthy).
    public func integrityCheck() async throws(StoreError) -> String {
        try await perform { try await pool.scan { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "" } }
    }
}
