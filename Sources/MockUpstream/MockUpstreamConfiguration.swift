/// Settings of the mock upstream: where it listens and how `mock-fast` streams.
public struct MockUpstreamConfiguration: Sendable {
    /// Host name or address to bind.
    public var host: String
    /// Port to bind; 0 picks any free port.
    public var port: Int
    /// Number of tokens in a default reply.
    public var tokens: Int
    /// Pause between two tokens, in milliseconds.
    public var delayMilliseconds: Int
    /// Pause before the first token, in milliseconds.
    public var firstTokenMilliseconds: Int
    /// Whether a stream leaves its connection open for the next request, as real providers do. A client that leaves
    /// mid-stream is then seen at the next write instead of at once (and never during a `mock-stall`).
    public var keepsConnections: Bool

    /// Creates a configuration; every argument has the CLI's default.
    public init(
        host: String = "127.0.0.1",
        port: Int = 8089,
        tokens: Int = 40,
        delayMilliseconds: Int = 0,
        firstTokenMilliseconds: Int = 0,
        keepsConnections: Bool = false
    ) {
        self.host = host
        self.port = port
        self.tokens = tokens
        self.delayMilliseconds = delayMilliseconds
        self.firstTokenMilliseconds = firstTokenMilliseconds
        self.keepsConnections = keepsConnections
    }
}
