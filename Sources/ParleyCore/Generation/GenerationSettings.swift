/// Timings and limits of the generation engine.
public struct GenerationSettings: Sendable {
    /// How often the partial text of running replies is saved.
    public var flushInterval: Duration
    /// The shortest gap between two `token` events of one reply (after the first, which goes at once) while the
    /// server is not busy; `coalesceInterval(running:)` widens it under load.
    public var coalesceInterval: Duration
    /// The widest gap between two `token` events, reached when many replies run at once.
    public var maxCoalesceInterval: Duration
    /// How often a waiting event stream gets a `: heartbeat` comment.
    public var heartbeatInterval: Duration
    /// Tokens kept free in the context window for the reply.
    public var replyReserve: Int
    /// Retries before the first token.
    public var retry: RetryPolicy
    /// How long running replies may go on after a shutdown starts before they end as `interrupted`.
    public var shutdownGrace: Duration
    /// Whether a conversation's first complete reply is followed by a request asking its model for a short title.
    public var modelTitles: Bool
    /// The most replies that may run at once (each holds an upstream connection); a send beyond it is refused with
    /// `GenerationError.atCapacity`. Nil: no limit.
    public var maxRunningReplies: Int?
    /// The clock the engine's timers, waits and coalescing go by.
    public var clock: EngineClock
    /// The most model calls one reply with tools makes (`PARLEY_TOOL_MAX_STEPS`); the last is offered no tool.
    public var maxToolSteps = 8

    /// Creates settings; the defaults are the product's.
    public init(
        flushInterval: Duration = .seconds(1), coalesceInterval: Duration = .milliseconds(30),
        maxCoalesceInterval: Duration = .milliseconds(150), heartbeatInterval: Duration = .seconds(5),
        replyReserve: Int = 4096, retry: RetryPolicy = RetryPolicy(),
        shutdownGrace: Duration = .seconds(10), modelTitles: Bool = true, clock: EngineClock = .continuous
    ) {
        self.flushInterval = flushInterval
        self.coalesceInterval = coalesceInterval
        self.maxCoalesceInterval = max(coalesceInterval, maxCoalesceInterval)
        self.heartbeatInterval = heartbeatInterval
        self.replyReserve = replyReserve
        self.retry = retry
        self.shutdownGrace = shutdownGrace
        self.modelTitles = modelTitles
        self.clock = clock
    }

    /// The gap between two `token` events when `running` replies stream at once: `coalesceInterval` up to 120 of
    /// them, then a quarter millisecond per reply, up to `maxCoalesceInterval`. Under load each event carries more
    /// text, so rendering, framing and writing cost less per token while every reply keeps moving.
    public func coalesceInterval(running: Int) -> Duration {
        min(maxCoalesceInterval, max(coalesceInterval, .microseconds(250 * max(0, running))))
    }

    /// About how many replies' events one tick of the coalescing timer sends: at 500 streams, ticks that sent a hundred
    /// replies' events at once made a first token that came meanwhile wait 1–3 ms; twenty took 0.2 ms.
    static let repliesPerTick = 20

    /// How often the coalescing timer looks for replies whose gap has passed, when `running` replies stream: as often
    /// as about `repliesPerTick` of their gaps pass, so that each tick's burst of events stays short, and at least
    /// twice a gap, so that a tick coming just before a reply's gap has passed delays its event by half a gap at most;
    /// but never more often than every 5 ms, nor than 10 µs a reply (looking through them then costs about the same
    /// small share of a core however many run: some 50 ns a reply a tick, half a percent), and at most once a gap. A
    /// few replies tick twice a gap: every 5 ms, as they once did, one reply cost 30–50% more server CPU per token in
    /// wake-ups. An idle server ticks once a gap, having nothing to look through.
    public func coalesceTick(running: Int) -> Duration {
        guard running > 0 else { return coalesceInterval }
        let spread = coalesceInterval(running: running) * Self.repliesPerTick / running
        let floor: Duration = max(.milliseconds(5), .microseconds(10 * running))
        return min(coalesceInterval, max(floor, min(spread, coalesceInterval / 2)))
    }
}
