import AsyncHTTPClient
import NIOSSL
import ParleyProviders

/// The upstream client's configuration (`HTTPClient.Configuration.upstream`) with the certificate authorities of
/// `PARLEY_UPSTREAM_CA_FILE`; a file that cannot be read or holds no certificate stops the start, named.
func upstreamClientConfiguration(
    _ settings: ServerSettings, timeouts: UpstreamTimeouts,
    replies: Int
) throws(SettingsError) -> HTTPClient.Configuration {
    let authorities =
        try settings.upstreamCertificateAuthorities.map { path throws(SettingsError) in
            try PEMCertificates.read(path, setting: "PARLEY_UPSTREAM_CA_FILE")
        } ?? []
    return .upstream(timeouts: timeouts, connections: replies, authorities: authorities)
}
