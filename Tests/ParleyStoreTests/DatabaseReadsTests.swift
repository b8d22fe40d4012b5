import Dispatch
import GRDB
import Synchronization
import Testing

@testable import ParleyStore

/// The store's two kinds of read never hold a reader connection while their task waits to resume.
@Suite struct DatabaseReadsTests {
    /// Far more reads at once than there are readers (8) and request threads: were a slow read to keep its reader
    /// until its task resumed, lookups blocked waiting for a reader could hold every thread that task needs.
    /// A deadlock blocks every thread the test could report from, so a watchdog outside Swift's threads ends the
    /// process with the reason instead of letting the run hang.
    @Test func lookupsAndSlowScansBeyondTheReaderCountAllFinish() async throws {
        let finished = Finished()
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) {
            if !finished.flag.load(ordering: .relaxed) {
                fatalError("lookups and scans have been blocked for 60 s: a read holds its reader across a suspension")
            }
        }
        defer { finished.flag.store(true, ordering: .relaxed) }
        try await StoreFixture.run { store in
            let user = try await store.user("reader@example.com")
            let pool = store.database.pool
            let found = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<400 {
                    group.addTask {
                        if index.isMultiple(of: 2) {
                            return try pool.lookup { db in
                                try Int.fetchOne(
                                    db, sql: "SELECT COUNT(*) FROM users WHERE id = ?", arguments: [user.id]) ?? 0
                            }
                        }
                        return try await pool.scan { db in
                            try Int.fetchOne(
                                db,
                                sql: """
                                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
                                    SELECT COUNT(*) / 20000 FROM n, users
                                    """) ?? 0
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(found == 400)
        }
    }
}

/// Whether the test has finished, for its watchdog.
private final class Finished: Sendable {
    let flag = Atomic<Bool>(false)
}
