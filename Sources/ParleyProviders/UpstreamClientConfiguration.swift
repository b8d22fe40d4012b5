import AsyncHTTPClient
import NIOCore
import NIOSSL

extension HTTPClient.Configuration {
    /// The configuration of the client that reaches upstream providers.
    ///
    /// - HTTP/1.1 only, a connection per running reply (`connections` kept alive per host at most). Over HTTP/2 an
    ///   `HTTPClient` opens one connection per host and queues every request past the stream limit the provider
    ///   advertises, usually 100 (swift-server/async-http-client#567), and a connection whose streams were all
    ///   cancelled at once (a Stop, a shutdown) was seen to take no request again while the provider had closed them.
    /// - The connect timeout; each reply's token deadlines are watched by the providers. A connection that fails to
    ///   open is tried again until then: failing at once would fail every request waiting for a connection to that
    ///   host, which a burst of replies (or a slow TLS handshake) turns into a burst of failures.
    /// - No decompression, and `authorities` trusted besides the system's certificate authorities.
    /// - No redirects followed: a redirect would carry the vendor's key header (`x-api-key`, `x-goog-api-key`) and the
    ///   conversation to another origin; a 3xx answer becomes `ProviderError.redirected`.
    /// - A TLS connection closes (after a Stop, a shutdown) without waiting for the provider's `close_notify` for
    ///   longer than `tlsShutdownTimeout`: NIOSSL's default of 5 s kept the connection open, and a provider that did
    /// not
    ///   answer ours streamed (and would bill) the stopped reply until then.
    public static func upstream(
        timeouts: UpstreamTimeouts, connections: Int,
        authorities: [NIOSSLCertificate] = []
    ) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.httpVersion = .http1Only
        configuration.connectionPool = .init(
            idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        configuration.timeout = timeouts.clientTimeout
        configuration.decompression = .disabled
        configuration.redirectConfiguration = .disallow
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.shutdownTimeout = tlsShutdownTimeout
        configuration.tlsConfiguration = tls
        if !authorities.isEmpty { configuration.trust([.certificates(authorities)]) }
        return configuration
    }

    /// How long a closing upstream TLS connection waits for the provider's `close_notify`.
    static var tlsShutdownTimeout: TimeAmount { .milliseconds(100) }

    /// Trusts the certificate authorities of `authorities` for HTTPS, besides the system's.
    public mutating func trust(_ authorities: [NIOSSLAdditionalTrustRoots]) {
        var tls = tlsConfiguration ?? TLSConfiguration.makeClientConfiguration()
        tls.additionalTrustRoots = authorities
        tlsConfiguration = tls
    }
}
