import AsyncHTTPClient
import NIOSSL
import ParleyProviders

/// The configuration of the HTTP clients that reach upstream providers: no more kept-alive connections per host than
/// one client carries requests or replies may run, the connect timeout (each reply's token deadlines are watched by
/// the providers), no decompression, and the extra certificate authorities of `PARLEY_UPSTREAM_CA_FILE`; a file that
/// holds no certificate stops the start, named. A connection that cannot be opened (refused, or a certificate not
/// trusted) fails its requests at once with the reason, and the reply's retries take over, where AsyncHTTPClient
/// would try again and again, silently, until the connect timeout.
func upstreamClientConfiguration(_ settings: ServerSettings, timeouts: UpstreamTimeouts,
                                 replies: Int) throws(SettingsError) -> HTTPClient.Configuration {
    var configuration = HTTPClient.Configuration()
    let connections = min(replies, UpstreamClient.requestsPerClient)
    configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
    configuration.connectionPool.retryConnectionEstablishment = false
    configuration.timeout = timeouts.clientTimeout
    configuration.decompression = .disabled
    if let path = settings.upstreamCertificateAuthorities {
        let authorities: [NIOSSLCertificate]
        do {
            authorities = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            throw SettingsError(name: "PARLEY_UPSTREAM_CA_FILE", value: path, expected: "a PEM file of certificates (\(error))")
        }
        guard !authorities.isEmpty else {
            throw SettingsError(name: "PARLEY_UPSTREAM_CA_FILE", value: path, expected: "a PEM file of certificates, and it holds none")
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.additionalTrustRoots = [.certificates(authorities)]
        configuration.tlsConfiguration = tls
    }
    return configuration
}
