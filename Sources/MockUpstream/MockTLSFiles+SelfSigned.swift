import Crypto
import Foundation
import SwiftASN1
import X509

extension MockTLSFiles {
    /// Writes `cert.pem` and `key.pem` into `directory`: a new P-256 key and a certificate it signs itself for
    /// 127.0.0.1 and localhost, valid for a day. A client that trusts `cert.pem` as an authority can reach the mock
    /// over HTTPS.
    public static func selfSigned(in directory: String) throws -> MockTLSFiles {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("parley-mock-upstream") }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-300), notValidAfter: now.addingTimeInterval(24 * 3600),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                SubjectAlternativeNames([
                    .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])), .dnsName("localhost"),
                ])
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
        let files = MockTLSFiles(certificateChain: directory + "/cert.pem", privateKey: directory + "/key.pem")
        try certificate.serializeAsPEM().pemString.write(
            toFile: files.certificateChain, atomically: true, encoding: .utf8)
        try key.pemRepresentation.write(toFile: files.privateKey, atomically: true, encoding: .utf8)
        return files
    }
}
