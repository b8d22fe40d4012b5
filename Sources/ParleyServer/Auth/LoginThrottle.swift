import Foundation

/// Counts failed sign-ins per email and per address; after `limit` failures within `window`, refuses more.
public final class LoginThrottle: Sendable {
    private let failures: SlidingWindowLimiter

    /// Creates a throttle (the product uses 10 failures in 5 minutes).
    public init(limit: Int = 10, window: TimeInterval = 300) {
        failures = SlidingWindowLimiter(limit: limit, window: window)
    }

    /// Seconds to wait before trying again, when any of the keys is throttled; nil otherwise.
    public func retryAfter(keys: [String], now: Date = Date()) -> Int? {
        failures.retryAfter(keys: keys, now: now)
    }

    /// Records a failed attempt under each key (bounded memory: expired keys are forgotten when many pile up).
    public func recordFailure(keys: [String], now: Date = Date()) {
        failures.record(keys: keys, now: now)
    }
}
