import Foundation
import Logging
import ParleyCore
import PostgresNIO
import Synchronization

/// The throttles' events in PostgreSQL (`throttle_events`), which every instance sharing the database counts: a key's
/// check and record run in one transaction under an advisory lock on the key, so that instances admitting at once
/// cannot overshoot. Events older than a day are dropped at most once a minute. When the database fails, the throttle
/// lets the request through (and logs why): a throttle slows abuse, it must not stop the site.
public final class PostgresThrottleLedger: ThrottleLedger {
    private let client: PostgresClient
    private let logger: Logger
    /// When old events were last dropped.
    private let lastSweep = Mutex<Date>(.distantPast)

    /// A ledger over `storage`'s pool.
    public init(storage: PostgresStorage) {
        client = storage.client
        logger = storage.logger
    }

    public func admit(key: String, limit: Int, window: TimeInterval, now: Date) async -> TimeInterval? {
        await sweep(now: now)
        do {
            return try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(key), 0))", logger: logger)
                let recent = try await Self.recent(key, window: window, now: now, on: connection, logger: logger)
                if recent.count >= limit { return window - now.timeIntervalSince(recent[recent.count - limit]) }
                try await connection.query(
                    "INSERT INTO throttle_events (key, at) VALUES (\(key), \(now))", logger: logger)
                return nil
            }
        } catch {
            logger.error("a throttle could not count", metadata: ["error": "\(String(reflecting: error))"])
            return nil
        }
    }

    public func record(keys: [String], now: Date) async {
        await sweep(now: now)
        do {
            try await client.query(
                "INSERT INTO throttle_events (key, at) SELECT unnest(\(keys)::text[]), \(now)", logger: logger)
        } catch {
            logger.error("a throttle could not record", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    public func recent(key: String, window: TimeInterval, now: Date) async -> [Date] {
        do {
            return try await client.withConnection { connection in
                try await Self.recent(key, window: window, now: now, on: connection, logger: logger)
            }
        } catch {
            logger.error("a throttle could not count", metadata: ["error": "\(String(reflecting: error))"])
            return []
        }
    }

    /// The times of `key`'s events inside the window before `now`, oldest first.
    private static func recent(
        _ key: String, window: TimeInterval, now: Date, on connection: PostgresConnection, logger: Logger
    ) async throws -> [Date] {
        try await connection.query(
            """
            SELECT at FROM throttle_events
            WHERE key = \(key) AND at > \(now.addingTimeInterval(-window)) AND at <= \(now) ORDER BY at
            """, logger: logger
        ).rows().map { try $0["at"].decode(Date.self) }
    }

    /// Drops events older than a day, once a minute at most.
    private func sweep(now: Date) async {
        let due = lastSweep.withLock { last in
            guard now.timeIntervalSince(last) >= 60 else { return false }
            last = now
            return true
        }
        guard due else { return }
        _ = try? await client.query(
            "DELETE FROM throttle_events WHERE at < \(now.addingTimeInterval(-86_400))", logger: logger)
    }
}
