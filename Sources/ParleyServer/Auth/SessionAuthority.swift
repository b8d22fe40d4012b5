import Crypto
import Foundation
import JWTKit
import ParleyCore

/// The claims of a session token: the user, the server-side session id, and the expiry.
struct SessionClaims: JWTPayload {
    var sub: SubjectClaim
    var sid: String
    var exp: ExpirationClaim

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}

/// Issues and checks session tokens: HS256 JWTs naming a session stored server-side, so that sign-out revokes.
public struct SessionAuthority: Sendable {
    let keys: JWTKeyCollection
    let accounts: any AccountStore
    let lifetime: TimeInterval
    let verified = VerifiedTokens(capacity: 10_000)

    /// Creates the authority with the HMAC secret.
    public init(secret: String, accounts: any AccountStore, lifetime: TimeInterval) async {
        keys = JWTKeyCollection()
        await keys.add(hmac: Self.signingKey(secret), digestAlgorithm: .sha256)
        self.accounts = accounts
        self.lifetime = lifetime
    }

    /// The HMAC key for a secret of any length: its SHA-256, so that short secrets still give a full-size key.
    static func signingKey(_ secret: String) -> HMACKey {
        HMACKey(key: SymmetricKey(data: SHA256.hash(data: Array(secret.utf8))))
    }

    /// Starts a session for the user; returns the token, the session's id and when it expires.
    public func signIn(_ user: User) async throws -> (token: String, sessionID: String, expiresAt: Date) {
        let expiresAt = Date().addingTimeInterval(lifetime)
        let session = Session(id: RandomToken.make(), userID: user.id, expiresAt: expiresAt)
        try await accounts.createSession(session)
        let claims = SessionClaims(sub: .init(value: String(user.id)), sid: session.id, exp: .init(value: expiresAt))
        return (try await keys.sign(claims), session.id, expiresAt)
    }

    /// The identity a token proves: valid signature, not expired, session not revoked, user active.
    public func identity(token: String, viaBearer: Bool) async -> Identity? {
        let now = Date()
        guard let claims = await claims(of: token, now: now),
            let active = try? await accounts.session(id: claims.sessionID, now: now), active.userID == claims.userID,
            !active.user.isDisabled
        else { return nil }
        return Identity(user: active.user, sessionID: active.session.id, viaBearer: viaBearer)
    }

    /// The claims of a token with a valid signature that has not expired, checked once per token.
    private func claims(of token: String, now: Date) async -> TokenClaims? {
        if let known = verified.claims(of: token, now: now) { return known }
        guard let claims = try? await keys.verify(token, as: SessionClaims.self), let userID = UserID(claims.sub.value)
        else {
            return nil
        }
        let checked = TokenClaims(userID: userID, sessionID: claims.sid, expiresAt: claims.exp.value)
        verified.remember(token, checked)
        return checked
    }

    /// Ends one session.
    public func signOut(sessionID: String) async throws {
        try await accounts.deleteSession(id: sessionID)
    }

    /// Ends every session of a user.
    public func signOutEverywhere(userID: UserID) async throws {
        try await accounts.deleteSessions(userID: userID)
    }
}
