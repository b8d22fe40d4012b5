/// The generation engine's time: an injected clock (the continuous clock, or a test's), read as the time since the
/// engine's clock was made. Timers, retry waits, the shutdown grace and token coalescing all go by it; the latency
/// metrics, which measure real time, do not.
public struct EngineClock: Sendable {
    private let elapsed: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void

    /// Reads and sleeps on `clock`.
    public init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let start = clock.now
        elapsed = { start.duration(to: clock.now) }
        sleeper = { duration in try await clock.sleep(for: duration) }
    }

    /// The continuous clock, the product's.
    public static var continuous: EngineClock { EngineClock(ContinuousClock()) }

    /// The time since the clock was made.
    public var now: Duration { elapsed() }

    /// Waits for `duration` to pass on the clock; throws when the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        try await sleeper(duration)
    }
}
