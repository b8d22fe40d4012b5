import Foundation
import Synchronization

/// Counts events per key over a sliding window: a key with `limit` events inside `window` is refused until the
/// oldest of them ages out. Memory stays bounded: expired keys are forgotten when many pile up.
public final class SlidingWindowLimiter: Sendable {
    let limit: Int
    let window: TimeInterval
    private let events = Mutex<[String: [Date]]>([:])

    /// Creates a limiter allowing `limit` events per key within `window` seconds.
    public init(limit: Int, window: TimeInterval) {
        self.limit = limit
        self.window = window
    }

    /// Seconds to wait before the next event, when any of the keys is at its limit; nil otherwise.
    public func retryAfter(keys: [String], now: Date = Date()) -> Int? {
        events.withLock { events in
            keys.compactMap { wait(for: $0, in: &events, now: now) }.max().map(Self.wholeSeconds)
        }
    }

    /// Records an event under each key.
    public func record(keys: [String], now: Date = Date()) {
        events.withLock { events in
            for key in keys { events[key, default: []].append(now) }
            forgetExpired(in: &events, now: now)
        }
    }

    /// Records an event under `key` if it is below its limit and returns nil; otherwise returns the seconds to wait
    /// (and records nothing). Checking and recording are one step, so concurrent callers cannot overshoot.
    public func admit(key: String, now: Date = Date()) -> Int? {
        events.withLock { events in
            if let wait = wait(for: key, in: &events, now: now) { return Self.wholeSeconds(wait) }
            events[key, default: []].append(now)
            forgetExpired(in: &events, now: now)
            return nil
        }
    }

    /// The times of `key`'s events inside the window, oldest first.
    public func recent(key: String, now: Date = Date()) -> [Date] {
        events.withLock { events in events[key, default: []].filter { now.timeIntervalSince($0) < window } }
    }

    /// Drops `key`'s expired events; returns how long until it is below the limit, or nil when it already is.
    private func wait(for key: String, in events: inout [String: [Date]], now: Date) -> TimeInterval? {
        let recent = (events[key] ?? []).filter { now.timeIntervalSince($0) < window }
        events[key] = recent.isEmpty ? nil : recent
        guard recent.count >= limit else { return nil }
        return window - now.timeIntervalSince(recent[recent.count - limit])
    }

    /// Forgets keys with no event inside the window, once more than 10,000 keys are held.
    private func forgetExpired(in events: inout [String: [Date]], now: Date) {
        guard events.count > 10_000 else { return }
        events = events.filter { $0.value.contains { now.timeIntervalSince($0) < window } }
    }

    /// A wait rounded up to whole seconds, at least one (the unit of `Retry-After`).
    static func wholeSeconds(_ wait: TimeInterval) -> Int { max(1, Int(wait.rounded(.up))) }
}
