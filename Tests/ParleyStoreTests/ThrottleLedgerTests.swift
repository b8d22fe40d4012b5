import Foundation
import ParleyCore
import TestDatabases
import Testing

@testable import ParleyPostgres

/// The throttles' ledgers, in memory and in PostgreSQL: the same limits, waits and one-step admission.
@Suite struct ThrottleLedgerTests {
    /// Runs `body` with a ledger of the kind: memory for SQLite (one instance), the database's for PostgreSQL.
    static func withLedger(_ kind: StoreKind, _ body: (any ThrottleLedger) async throws -> Void) async throws {
        switch kind {
        case .sqlite: try await body(MemoryThrottleLedger())
        case .postgres:
            try await TestPostgres.shared.withDatabase { database in
                try await body(PostgresThrottleLedger(storage: database))
            }
        }
    }

    @Test(
        "a key is admitted up to its limit, then told how long until its oldest event ages out",
        arguments: StoreKind.allCases)
    func limitsAndWaits(kind: StoreKind) async throws {
        try await Self.withLedger(kind) { ledger in
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            let send = SlidingWindowLimiter(name: "send", limit: 2, window: 60, ledger: ledger)
            #expect(await send.admit(key: "7", now: start) == nil)
            #expect(await send.admit(key: "7", now: start.addingTimeInterval(10)) == nil)
            #expect(await send.admit(key: "7", now: start.addingTimeInterval(20)) == 40)
            // Another key, and another throttle's same key, count apart.
            #expect(await send.admit(key: "8", now: start.addingTimeInterval(20)) == nil)
            let signUp = SlidingWindowLimiter(name: "sign-up", limit: 2, window: 60, ledger: ledger)
            #expect(await signUp.admit(key: "7", now: start.addingTimeInterval(20)) == nil)
            #expect(await send.admit(key: "7", now: start.addingTimeInterval(61)) == nil)
            #expect(await send.recent(key: "7", now: start.addingTimeInterval(61)).count == 2)
            await send.record(keys: ["9", "9"], now: start)
            #expect(await send.retryAfter(keys: ["8", "9"], now: start.addingTimeInterval(30)) == 30)
        }
    }

    @Test("of admissions asked at once, exactly the limit's number get through", arguments: StoreKind.allCases)
    func concurrentAdmissions(kind: StoreKind) async throws {
        try await Self.withLedger(kind) { ledger in
            let limiter = SlidingWindowLimiter(name: "send", limit: 3, window: 60, ledger: ledger)
            let now = Date()
            let admitted = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<12 { group.addTask { await limiter.admit(key: "1", now: now) == nil } }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(admitted == 3)
        }
    }
}
