import Foundation

/// Throttles sign-in so that guessing is slow and nobody can lock an owner out. Per address: `limit` failures within
/// `window` refuse every further try from it until the oldest ages out. Per account: past `limit` failures within
/// `window`, an address that has itself failed recently must wait a delay that doubles with each failure past the
/// limit (up to `window`), while an address with no recent failure may still try, so that the owner, with the right
/// password, still signs in however many others guess.
public struct LoginThrottle: Sendable {
    private let limit: Int
    private let window: TimeInterval
    private let addresses: SlidingWindowLimiter
    private let accounts: SlidingWindowLimiter

    /// Creates a throttle counting in `ledger` (the product uses 10 failures in 5 minutes).
    public init(limit: Int = 10, window: TimeInterval = 300, ledger: any ThrottleLedger = MemoryThrottleLedger()) {
        self.limit = limit
        self.window = window
        addresses = SlidingWindowLimiter(name: "sign-in-address", limit: limit, window: window, ledger: ledger)
        accounts = SlidingWindowLimiter(name: "sign-in-account", limit: limit, window: window, ledger: ledger)
    }

    /// Seconds `address` must wait before trying to sign in as `email`; nil when it may try now.
    public func retryAfter(email: String, address: String, now: Date = Date()) async -> Int? {
        if let wait = await addresses.retryAfter(keys: [address], now: now) { return wait }
        let failures = await accounts.recent(key: Self.accountKey(email), now: now)
        guard failures.count >= limit, let last = failures.last,
            await !addresses.recent(key: address, now: now).isEmpty
        else { return nil }
        let delay = min(window, pow(2, Double(failures.count - limit)))
        let wait = last.addingTimeInterval(delay).timeIntervalSince(now)
        return wait > 0 ? SlidingWindowLimiter.wholeSeconds(wait) : nil
    }

    /// Records a failed sign-in as `email` from `address`.
    public func recordFailure(email: String, address: String, now: Date = Date()) async {
        await addresses.record(keys: [address], now: now)
        await accounts.record(keys: [Self.accountKey(email)], now: now)
    }

    /// Emails differ only in case for the same account.
    private static func accountKey(_ email: String) -> String { email.lowercased() }
}
