import GRDB
import ParleyStore

/// What a test checks in the SQLite file after a fault: the file is intact and no reply is left `streaming`.
struct DatabaseHealth: Equatable, CustomStringConvertible {
    var integrity: String
    var streamingReplies: Int

    /// Healthy: `PRAGMA integrity_check` says ok and nothing is still marked `streaming`.
    static let healthy = DatabaseHealth(integrity: "ok", streamingReplies: 0)

    /// Reads the health of the database in `directory` (the server may be running on it).
    static func read(_ directory: String) async throws -> DatabaseHealth {
        let database = try ParleyDatabase(directory: directory)
        let integrity = try await database.integrityCheck()
        let streaming = try await database.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM messages WHERE status = 'streaming'") ?? -1
        }
        return DatabaseHealth(integrity: integrity, streamingReplies: streaming)
    }

    var description: String { "integrity \(integrity), \(streamingReplies) replies streaming" }
}
