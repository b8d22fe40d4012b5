import Foundation
import Synchronization

/// Counts failed sign-ins per email and per address; after `limit` failures within `window`, refuses more.
public final class LoginThrottle: Sendable {
    let limit: Int
    let window: TimeInterval
    private let failures = Mutex<[String: [Date]]>([:])

    /// Creates a throttle (the product uses 10 failures in 5 minutes).
    public init(limit: Int = 10, window: TimeInterval = 300) {
        self.limit = limit
        self.window = window
    }

    /// Seconds to wait before trying again, when any of the keys is throttled; nil otherwise.
    public func retryAfter(keys: [String], now: Date = Date()) -> Int? {
        failures.withLock { failures in
            let waits = keys.compactMap { key -> TimeInterval? in
                let recent = (failures[key] ?? []).filter { now.timeIntervalSince($0) < window }
                failures[key] = recent.isEmpty ? nil : recent
                guard recent.count >= limit, let oldest = recent.first else { return nil }
                return window - now.timeIntervalSince(oldest)
            }
            return waits.max().map { max(1, Int($0.rounded(.up))) }
        }
    }

    /// Records a failed attempt under each key; forgets expired ones when many keys pile up (bounded memory).
    public func recordFailure(keys: [String], now: Date = Date()) {
        failures.withLock { failures in
            for key in keys { failures[key, default: []].append(now) }
            if failures.count > 10_000 {
                failures = failures.filter { $0.value.contains { now.timeIntervalSince($0) < window } }
            }
        }
    }
}
