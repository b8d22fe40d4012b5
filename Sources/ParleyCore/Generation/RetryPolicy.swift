/// How often and how long to wait before retrying a failed upstream request that produced no token yet.
public struct RetryPolicy: Sendable {
    public var maxRetries: Int
    public var baseDelay: Duration
    public var maxDelay: Duration

    /// Creates a policy.
    public init(maxRetries: Int = 3, baseDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(8)) {
        self.maxRetries = maxRetries
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// The wait before retry number `attempt` (0-based): the provider's `Retry-After` when given,
    /// else exponential backoff with full jitter.
    public func delay(attempt: Int, retryAfterSeconds: Double?) -> Duration {
        if let retryAfterSeconds, retryAfterSeconds >= 0 {
            // Clamp as a Double first: a hostile `Retry-After: inf` or 1e300 must not overflow.
            let maxSeconds = Double(maxDelay.components.seconds) + Double(maxDelay.components.attoseconds) / 1e18
            return .milliseconds(Int64(min(retryAfterSeconds, maxSeconds) * 1000))
        }
        let ceiling = min(baseDelay * (1 << min(attempt, 16)), maxDelay)
        let millis = Double(ceiling.components.seconds) * 1000 + Double(ceiling.components.attoseconds) / 1e15
        return .milliseconds(Int64(Double.random(in: 0.5...1) * millis))
    }
}
