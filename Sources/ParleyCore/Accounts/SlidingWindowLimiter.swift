import Foundation

/// Counts events per key over a sliding window, in a ledger (this process's, or the database every instance
/// shares): a key with `limit` events inside `window` is refused until the oldest of them ages out.
public struct SlidingWindowLimiter: Sendable {
    /// The throttle's name, which namespaces its keys in a shared ledger.
    let name: String
    let limit: Int
    let window: TimeInterval
    let ledger: any ThrottleLedger

    /// Creates a limiter named `name` allowing `limit` events per key within `window` seconds, counted in `ledger`.
    public init(name: String, limit: Int, window: TimeInterval, ledger: any ThrottleLedger) {
        self.name = name
        self.limit = limit
        self.window = window
        self.ledger = ledger
    }

    /// Seconds to wait before the next event, when any of the keys is at its limit; nil otherwise.
    public func retryAfter(keys: [String], now: Date = Date()) async -> Int? {
        var longest: TimeInterval?
        for key in keys {
            let recent = await ledger.recent(key: scoped(key), window: window, now: now)
            guard recent.count >= limit else { continue }
            longest = max(longest ?? 0, window - now.timeIntervalSince(recent[recent.count - limit]))
        }
        return longest.map(Self.wholeSeconds)
    }

    /// Records an event under each key.
    public func record(keys: [String], now: Date = Date()) async {
        await ledger.record(keys: keys.map(scoped), now: now)
    }

    /// Records an event under `key` if it is below its limit and returns nil; otherwise returns the seconds to wait
    /// (and records nothing).
    public func admit(key: String, now: Date = Date()) async -> Int? {
        await ledger.admit(key: scoped(key), limit: limit, window: window, now: now).map(Self.wholeSeconds)
    }

    /// The times of `key`'s events inside the window, oldest first.
    public func recent(key: String, now: Date = Date()) async -> [Date] {
        await ledger.recent(key: scoped(key), window: window, now: now)
    }

    /// `key` in this throttle's namespace.
    private func scoped(_ key: String) -> String { name + ":" + key }

    /// A wait rounded up to whole seconds, at least one (the unit of `Retry-After`).
    static func wholeSeconds(_ wait: TimeInterval) -> Int { max(1, Int(wait.rounded(.up))) }
}
