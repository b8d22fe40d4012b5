import ArgumentParser

/// The certificate authorities a load trusts, for a Parley or a mock serving HTTPS with a self-signed certificate.
struct TrustOptions: ParsableArguments {
    @Option(help: "A PEM file of certificate authorities to trust for an HTTPS mock.") var mockCa: String?
    @Option(help: "A PEM file of certificate authorities to trust for an HTTPS Parley.") var parleyCa: String?

    /// The given files, to trust besides the system's authorities.
    var authorities: [String] { [mockCa, parleyCa].compactMap { $0 } }
}
