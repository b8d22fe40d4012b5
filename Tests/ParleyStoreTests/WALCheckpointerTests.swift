import Foundation
import GRDB
import Testing

@testable import ParleyStore

/// The WAL is copied into the database file by a checkpoint connection of its own, not by the writer's commits.
@Suite struct WALCheckpointerTests {
    /// The size of the file at `path`, in bytes.
    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    @Test(
        "the writer's commits checkpoint nothing themselves, and past 1,000 WAL pages the database file takes them while the writer is busy with another transaction"
    )
    func checkpointsOffTheWriter() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try ParleyDatabase(directory: directory)
        let file = directory + "/parley.sqlite"
        let before = Self.size(file)
        #expect(try await database.pool.write { try Int.fetchOne($0, sql: "PRAGMA wal_autocheckpoint") } == 0)
        // About 6 MB, 1,500 pages of 4 KB: past the checkpointer's threshold.
        try await database.pool.write { db in
            try db.execute(sql: "CREATE TABLE filler (bytes BLOB)")
            for _ in 0..<1_500 { try db.execute(sql: "INSERT INTO filler VALUES (zeroblob(4000))") }
        }
        // The writer stays in a transaction of its own while the checkpoint copies the pages into the database file.
        let grown = try await database.pool.write { _ in
            let deadline = Date().addingTimeInterval(20)
            while Self.size(file) < before + 5_000_000, Date() < deadline { usleep(5_000) }
            return Self.size(file) >= before + 5_000_000
        }
        #expect(grown)
        #expect(try await database.pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM filler") } == 1_500)
        try database.close()
    }

    @Test(
        "closing a database twice, from two copies of it, lets go of the checkpointer once: the process lives on and the file reopens intact"
    )
    func closingTwice() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try ParleyDatabase(directory: directory)
        let copy = database
        try database.close()
        try copy.close()
        let reopened = try ParleyDatabase(directory: directory)
        #expect(try reopened.pool.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok")
        try reopened.close()
    }
}
