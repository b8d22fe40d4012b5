import AsyncHTTPClient
import NIOCore

/// How long Parley waits on a provider: to connect, for the first token of a reply, and between two tokens.
public struct UpstreamTimeouts: Sendable, Equatable {
    /// The longest a TCP (and TLS) connection may take to open.
    public var connect: Duration
    /// The longest from sending a request to its first token (the model may think first).
    public var firstToken: Duration
    /// The longest silence between two tokens of a reply.
    public var betweenTokens: Duration

    /// Creates timeouts; the defaults are the product's.
    public init(
        connect: Duration = .seconds(10), firstToken: Duration = .seconds(120), betweenTokens: Duration = .seconds(60)
    ) {
        self.connect = connect
        self.firstToken = firstToken
        self.betweenTokens = betweenTokens
    }

    /// The upstream client's own timeouts: only the connect one, as the token deadlines are watched per request.
    public var clientTimeout: HTTPClient.Configuration.Timeout {
        HTTPClient.Configuration.Timeout(connect: TimeAmount(connect), read: nil)
    }
}
