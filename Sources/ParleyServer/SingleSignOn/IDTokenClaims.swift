import Foundation
import JWTKit

/// The claims of an ID token Parley checks and reads; `check` applies the rules of OpenID Connect Core §3.1.3.7 once
/// jwt-kit has checked the signature.
struct IDTokenClaims: JWTPayload {
    var iss: String
    var sub: String
    var aud: AudienceClaim
    var exp: Date
    var iat: Date?
    var nonce: String?
    var azp: String?
    var email: String?
    var emailVerified: VerifiedFlag?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, nonce, azp, email
        case emailVerified = "email_verified"
    }

    /// How far the provider's clock may be from Parley's.
    static let clockSkew: TimeInterval = 60

    /// Checked by `check`, with Parley's clock, after the signature.
    func verify(using algorithm: some JWTAlgorithm) async throws {}

    /// Whether the token was issued by `issuer` to `clientID` for the sign-in that sent `nonce`, and is current at
    /// `now`.
    func check(issuer: String, clientID: String, nonce expected: String, now: Date) -> Bool {
        guard iss == issuer, aud.value.contains(clientID), !sub.isEmpty,
            // A token for several audiences must name Parley as the party it was issued to.
            aud.value.count == 1 || azp == clientID, azp == nil || azp == clientID,
            exp.addingTimeInterval(Self.clockSkew) > now,
            (iat.map { $0 <= now.addingTimeInterval(Self.clockSkew) } ?? true),
            let nonce, RandomToken.constantTimeEqual(nonce, expected)
        else { return false }
        return true
    }
}

/// `email_verified`, which providers send as a boolean or as the text "true" or "false".
struct VerifiedFlag: Codable, Equatable {
    var value: Bool

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let flag = try? container.decode(Bool.self) {
            value = flag
        } else {
            value = try container.decode(String.self).lowercased() == "true"
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}
