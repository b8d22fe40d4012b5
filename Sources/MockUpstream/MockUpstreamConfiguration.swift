/// The PEM files of a server certificate (its chain) and its private key.
public struct MockTLSFiles: Sendable {
    /// The certificate chain, the server's first.
    public var certificateChain: String
    /// The private key.
    public var privateKey: String

    /// Names the two files.
    public init(certificateChain: String, privateKey: String) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
    }
}

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
    /// The certificate and key to serve HTTPS with, HTTP/2 and HTTP/1.1 negotiated as real providers do; nil serves
    /// plain HTTP/1.1.
    public var tls: MockTLSFiles?

    /// Creates a configuration; every argument has the CLI's default.
    public init(
        host: String = "127.0.0.1",
        port: Int = 8089,
        tokens: Int = 40,
        delayMilliseconds: Int = 0,
        firstTokenMilliseconds: Int = 0,
        keepsConnections: Bool = false,
        tls: MockTLSFiles? = nil
    ) {
        self.host = host
        self.port = port
        self.tokens = tokens
        self.delayMilliseconds = delayMilliseconds
        self.firstTokenMilliseconds = firstTokenMilliseconds
        self.keepsConnections = keepsConnections
        self.tls = tls
    }

    /// Whether a stream's answer closes its connection and watches for the client's close, so that a client leaving
    /// is counted at once: over plain HTTP unless connections are kept. Over HTTPS connections stay open as with
    /// `keepsConnections` (HTTP/2 forbids the `Connection` header, and one watch would spend an HTTP/1.1 connection).
    var closesConnections: Bool { !keepsConnections && tls == nil }

}
