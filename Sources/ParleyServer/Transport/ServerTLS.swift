import NIOSSL

/// The TLS configuration HTTPS is served with, from `PARLEY_TLS_CERTIFICATE` and `PARLEY_TLS_KEY`.
enum ServerTLS {
    /// The server configuration of the settings' certificate chain and key, nil when neither is set. Throws, naming the
    /// setting, when only one is set, a file cannot be read or holds no certificate or key, or the key does not belong
    /// to the certificate: checked here, so that a bad file stops the start rather than every connection.
    static func configuration(_ settings: ServerSettings) throws(SettingsError) -> TLSConfiguration? {
        switch (settings.tlsCertificate, settings.tlsKey) {
        case (nil, nil):
            return nil
        case (nil, _?):
            throw SettingsError(
                name: "PARLEY_TLS_CERTIFICATE", value: "",
                expected: "a PEM file, since PARLEY_TLS_KEY is set (HTTPS needs both)")
        case (_?, nil):
            throw SettingsError(
                name: "PARLEY_TLS_KEY", value: "",
                expected: "a PEM file, since PARLEY_TLS_CERTIFICATE is set (HTTPS needs both)")
        case (let certificatePath?, let keyPath?):
            let chain = try PEMCertificates.read(certificatePath, setting: "PARLEY_TLS_CERTIFICATE")
            let key: NIOSSLPrivateKey
            do {
                key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
            } catch {
                throw SettingsError(name: "PARLEY_TLS_KEY", value: keyPath, expected: "a PEM private key (\(error))")
            }
            let configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain.map { .certificate($0) },
                privateKey: .privateKey(key))
            do {
                _ = try NIOSSLContext(configuration: configuration)
            } catch {
                throw SettingsError(
                    name: "PARLEY_TLS_KEY", value: keyPath,
                    expected: "the private key of PARLEY_TLS_CERTIFICATE's certificate (\(error))")
            }
            return configuration
        }
    }
}
