import Foundation
import JWTKit

@testable import ParleyServer

/// Signs a session token with a known secret, to test what the server does with expired or unknown sessions.
func forgeToken(secret: String, userID: String, session: String, expiresIn: TimeInterval) async throws -> String {
    let keys = JWTKeyCollection()
    await keys.add(hmac: SessionAuthority.signingKey(secret), digestAlgorithm: .sha256)
    return try await keys.sign(
        SessionClaims(
            sub: .init(value: userID), sid: session,
            exp: .init(value: Date().addingTimeInterval(expiresIn))))
}
