import AsyncHTTPClient
import NIOSSL
import ParleyProviders

/// The upstream client's configuration (`HTTPClient.Configuration.upstream`) with the certificate authorities of
/// `PARLEY_UPSTREAM_CA_FILE`; a file that cannot be read or holds no certificate stops the start, named.
func upstreamClientConfiguration(_ settings: ServerSettings, timeouts: UpstreamTimeouts,
                                 replies: Int) throws(SettingsError) -> HTTPClient.Configuration {
    var authorities: [NIOSSLCertificate] = []
    if let path = settings.upstreamCertificateAuthorities {
        do {
            authorities = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            throw SettingsError(name: "PARLEY_UPSTREAM_CA_FILE", value: path, expected: "a PEM file of certificates (\(error))")
        }
        guard !authorities.isEmpty else {
            throw SettingsError(name: "PARLEY_UPSTREAM_CA_FILE", value: path, expected: "a PEM file of certificates, and it holds none")
        }
    }
    return .upstream(timeouts: timeouts, connections: replies, authorities: authorities)
}
