import NIOSSL

/// The certificates of a PEM file a setting names, for the TLS the server serves and the authorities it trusts.
enum PEMCertificates {
    /// The certificates in the file at `path`; throws naming `setting` when the file cannot be read, is not PEM or
    /// holds no certificate.
    static func read(_ path: String, setting: String) throws(SettingsError) -> [NIOSSLCertificate] {
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            throw SettingsError(name: setting, value: path, expected: "a PEM file of certificates (\(error))")
        }
        guard !certificates.isEmpty else {
            throw SettingsError(name: setting, value: path, expected: "a PEM file of certificates, and it holds none")
        }
        return certificates
    }
}
