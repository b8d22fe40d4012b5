import Foundation
import GRDB
import Synchronization
import Testing

@testable import ParleyStore

/// Writes that wait while another transaction commits share the next one, and still succeed or fail one by one.
@Suite struct GroupCommitWriterTests {
    /// What one write saw: its row's id and the start of the transaction it ran in.
    private struct Written: Sendable {
        let id: Int64
        let transaction: Date
    }

    /// Thrown by a write that wants to fail.
    private struct Refused: Error {}

    /// Holds the writer with a write that waits until `count` more writes wait behind it, then submits `count` writes
    /// of `body` (given each write's number) at once; returns each write's outcome by number, and the holding write's
    /// transaction start.
    private func batch(
        _ writer: GroupCommitWriter, count: Int,
        _ body: @escaping @Sendable (Int, Database) throws -> Written
    ) async throws
        -> (outcomes: [Int: Result<Written, any Error>], held: Date)
    {
        let progress = BatchProgress()
        async let held = writer.write { db in
            progress.holding.store(true, ordering: .sequentiallyConsistent)
            let deadline = Date().addingTimeInterval(30)
            while writer.waitingWrites < count, Date() < deadline { usleep(1000) }
            return try db.transactionDate
        }
        // The holding write flags that it runs from the writer's thread, which has no event to await: polled, 30 s at
        // most (a write that failed before it ran would otherwise leave this loop spinning).
        let deadline = ContinuousClock.now + .seconds(30)
        while !progress.holding.load(ordering: .sequentiallyConsistent) {
            try #require(ContinuousClock.now < deadline, "the holding write never ran")
            try await Task.sleep(for: .milliseconds(1))
        }
        let outcomes = await withTaskGroup(of: (Int, Result<Written, any Error>).self) { group in
            for number in 0..<count {
                group.addTask {
                    do {
                        return (number, .success(try await writer.write { db in try body(number, db) }))
                    } catch {
                        return (number, .failure(error))
                    }
                }
            }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        return (outcomes, try await held)
    }

    /// Inserts a note labelled `label` and says where it went.
    private static func insertNote(_ label: String, _ db: Database) throws -> Written {
        try db.execute(sql: "INSERT INTO notes (label) VALUES (?)", arguments: [label])
        return Written(id: db.lastInsertedRowID, transaction: try db.transactionDate)
    }

    /// The labels of the stored notes, by id.
    private static func notes(_ database: ParleyDatabase) async throws -> [Int64: String] {
        try await database.pool.read { db in
            Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT id, label FROM notes").map { ($0[0], $0[1]) })
        }
    }

    @Test func writesThatWaitedShareOneTransactionAndEachGetsItsOwnValue() async throws {
        try await StoreFixture.run { store in
            try await store.database.pool.write { db in
                try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, label TEXT UNIQUE)")
            }
            let (outcomes, held) = try await batch(store.database.writer, count: 20) { number, db in
                try Self.insertNote("note \(number)", db)
            }
            let written = try outcomes.mapValues { try $0.get() }
            #expect(Set(written.values.map(\.transaction)).count == 1)
            #expect(written.values.first?.transaction != held)
            let stored = try await Self.notes(store.database)
            #expect(stored.count == 20)
            for (number, write) in written { #expect(stored[write.id] == "note \(number)") }
        }
    }

    @Test func aWriteThatThrowsIsRolledBackAloneAndTheRestOfItsTransactionCommits() async throws {
        try await StoreFixture.run { store in
            try await store.database.pool.write { db in
                try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, label TEXT UNIQUE)")
                try db.execute(sql: "INSERT INTO notes (label) VALUES ('taken')")
            }
            let (outcomes, _) = try await batch(store.database.writer, count: 20) { number, db in
                switch number {
                case 7:
                    _ = try Self.insertNote("note 7", db)
                    throw Refused()
                case 12:
                    return try Self.insertNote("taken", db)
                default:
                    return try Self.insertNote("note \(number)", db)
                }
            }
            #expect(throws: Refused.self) { try outcomes[7]?.get() }
            #expect { try outcomes[12]?.get() } throws: {
                ($0 as? DatabaseError)?.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE
            }
            let written = try outcomes.filter { ![7, 12].contains($0.key) }.mapValues { try $0.get() }
            #expect(written.count == 18)
            #expect(Set(written.values.map(\.transaction)).count == 1)
            let stored = try await Self.notes(store.database)
            #expect(Set(stored.values) == Set(written.keys.map { "note \($0)" } + ["taken"]))
        }
    }

    @Test func whenSQLiteEndsTheTransactionTheWritesRunInItFailAndTheRestCommitInAnother() async throws {
        try await StoreFixture.run { store in
            try await store.database.pool.write { db in
                try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, label TEXT UNIQUE)")
            }
            let order = Mutex<[Int]>([])
            let (outcomes, _) = try await batch(store.database.writer, count: 10) { number, db in
                order.withLock { $0.append(number) }
                let written = try Self.insertNote("note \(number)", db)
                // As SQLite does on some errors (a full disk, an I/O error): the whole transaction is rolled back.
                if number == 4 { try db.execute(sql: "ROLLBACK") }
                return written
            }
            let ran = order.withLock { $0 }
            let position = try #require(ran.firstIndex(of: 4))
            let rolledBack = Set(ran[...position])
            let stored = try await Self.notes(store.database)
            for number in 0..<10 {
                if rolledBack.contains(number) {
                    #expect(throws: (any Error).self) { try outcomes[number]?.get() }
                    #expect(!stored.values.contains("note \(number)"))
                } else {
                    #expect(try stored[outcomes[number]!.get().id] == "note \(number)")
                }
            }
            #expect(ran.count == 10)
        }
    }
}

/// Whether the holding write of `batch` has started.
private final class BatchProgress: Sendable {
    let holding = Atomic<Bool>(false)
}
