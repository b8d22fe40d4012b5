import Foundation
import Synchronization

/// Where the throttles count events: this process's memory, or a database that every instance serving the site
/// shares, so that a limit holds however requests are spread over them. Keys are namespaced by their throttle.
public protocol ThrottleLedger: Sendable {
    /// Records an event under `key` at `now` unless `limit` events are inside the `window` (seconds) before it; returns
    /// how long until one ages out when refused (nothing recorded), nil when admitted. Checking and recording are one
    /// step, so concurrent callers, on any instance, cannot overshoot.
    func admit(key: String, limit: Int, window: TimeInterval, now: Date) async -> TimeInterval?
    /// Records an event under each key at `now`.
    func record(keys: [String], now: Date) async
    /// The times of `key`'s events inside the `window` before `now`, oldest first.
    func recent(key: String, window: TimeInterval, now: Date) async -> [Date]
}

/// A ledger in this process's memory (one instance). Memory stays bounded: expired keys are forgotten when many pile
/// up.
public final class MemoryThrottleLedger: ThrottleLedger {
    private let events = Mutex<[String: [Date]]>([:])
    /// The longest window asked about, which tells which events can be forgotten.
    private let longestWindow = Mutex<TimeInterval>(0)

    /// An empty ledger.
    public init() {}

    public func admit(key: String, limit: Int, window: TimeInterval, now: Date) async -> TimeInterval? {
        note(window)
        return events.withLock { events in
            let recent = Self.recent(events[key] ?? [], window: window, now: now)
            if recent.count >= limit { return window - now.timeIntervalSince(recent[recent.count - limit]) }
            events[key] = recent + [now]
            forgetExpired(in: &events, now: now)
            return nil
        }
    }

    public func record(keys: [String], now: Date) async {
        events.withLock { events in
            for key in keys { events[key, default: []].append(now) }
            forgetExpired(in: &events, now: now)
        }
    }

    public func recent(key: String, window: TimeInterval, now: Date) async -> [Date] {
        note(window)
        return events.withLock { Self.recent($0[key] ?? [], window: window, now: now) }
    }

    /// Remembers the longest window asked about.
    private func note(_ window: TimeInterval) {
        longestWindow.withLock { $0 = max($0, window) }
    }

    /// The times inside the window before `now`.
    private static func recent(_ times: [Date], window: TimeInterval, now: Date) -> [Date] {
        times.filter { now.timeIntervalSince($0) < window }
    }

    /// Forgets keys with no event inside the longest window, once more than 10,000 keys are held.
    private func forgetExpired(in events: inout [String: [Date]], now: Date) {
        guard events.count > 10_000 else { return }
        let window = longestWindow.withLock { $0 }
        events = events.filter { $0.value.contains { now.timeIntervalSince($0) < window } }
    }
}
