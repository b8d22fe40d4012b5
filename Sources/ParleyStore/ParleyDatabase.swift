import Foundation
import GRDB
import ParleyCore

/// The one SQLite file that holds all of Parley's state: opened in WAL mode with a busy timeout, and migrated.
public struct ParleyDatabase: Sendable {
    /// The connection pool: many readers, one writer.
    public let pool: DatabasePool

    /// Opens (creating if needed) `parley.sqlite` in `directory` and brings its schema up to date.
    public init(directory: String) throws(StoreError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            configuration.maximumReaderCount = 8
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
            pool = try DatabasePool(path: (directory as NSString).appendingPathComponent("parley.sqlite"),
                                    configuration: configuration)
            try Migrations.migrator.migrate(pool)
        } catch {
            throw StoreError.database("opening the database failed: \(error)")
        }
    }

    /// Whether the database answers a trivial query.
    public func ping() async -> Bool {
        (try? await pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") }) == 1
    }

    /// The result of SQLite's `PRAGMA integrity_check` ("ok" when healthy).
    public func integrityCheck() async throws(StoreError) -> String {
        try await perform { try await pool.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "" } }
    }
}
