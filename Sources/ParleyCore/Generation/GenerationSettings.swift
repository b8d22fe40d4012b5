/// Timings and limits of the generation engine.
public struct GenerationSettings: Sendable {
    /// How often the partial text of running replies is saved.
    public var flushInterval: Duration
    /// The shortest gap between two `token` events of one reply (after the first, which goes at once).
    public var coalesceInterval: Duration
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

    /// Creates settings; the defaults are the product's.
    public init(flushInterval: Duration = .seconds(1), coalesceInterval: Duration = .milliseconds(30),
                heartbeatInterval: Duration = .seconds(5), replyReserve: Int = 4096, retry: RetryPolicy = RetryPolicy(),
                shutdownGrace: Duration = .seconds(10), modelTitles: Bool = true) {
        self.flushInterval = flushInterval
        self.coalesceInterval = coalesceInterval
        self.heartbeatInterval = heartbeatInterval
        self.replyReserve = replyReserve
        self.retry = retry
        self.shutdownGrace = shutdownGrace
        self.modelTitles = modelTitles
    }
}
