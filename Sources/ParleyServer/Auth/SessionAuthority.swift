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

/// Issues and checks session tokens: HS256 JWTs naming a session stored server-side, so that sign-out revokes. A
/// session's last use is written when a request finds the stored one older than `touchInterval`, so that a busy session
/// costs one write every few minutes rather than one a request.
public struct SessionAuthority: Sendable {
    /// How stale a session's stored last use may get before a request writes it again.
    static let touchInterval: TimeInterval = 300
    let keys: JWTKeyCollection
    let accounts: any AccountStore
    let lifetime: TimeInterval
    let verified = VerifiedTokens(capacity: 10_000)
    let now: @Sendable () -> Date

    /// Creates the authority with the HMAC secret; `now` is the clock of expiry and last use.
    public init(
        secret: String, accounts: any AccountStore, lifetime: TimeInterval,
        now: @escaping @Sendable () -> Date = { Date() }
    ) async {
        keys = JWTKeyCollection()
        await keys.add(hmac: Self.signingKey(secret), digestAlgorithm: .sha256)
        self.accounts = accounts
        self.lifetime = lifetime
        self.now = now
    }

    /// The HMAC key for a secret of any length: its SHA-256, so that short secrets still give a full-size key.
    static func signingKey(_ secret: String) -> HMACKey {
        HMACKey(key: SymmetricKey(data: SHA256.hash(data: Array(secret.utf8))))
    }

    /// Starts a session for the user, recording the device and address it began from (`origin`); returns the token,
    /// the session's id and when it expires.
    public func signIn(_ user: User, origin: SessionOrigin) async throws -> (
        token: String, sessionID: String, expiresAt: Date
    ) {
        let start = now()
        let expiresAt = start.addingTimeInterval(lifetime)
        let session = Session(id: RandomToken.make(), userID: user.id, expiresAt: expiresAt, lastUsedAt: start)
        try await accounts.createSession(session, origin: origin)
        let claims = SessionClaims(sub: .init(value: String(user.id)), sid: session.id, exp: .init(value: expiresAt))
        return (try await keys.sign(claims), session.id, expiresAt)
    }

    /// The identity a token proves: valid signature, not expired, session not revoked, user active. Writes the
    /// session's last use when the stored one is older than `touchInterval` (a failed write is only a stale date).
    public func identity(token: String, viaBearer: Bool) async -> Identity? {
        let now = now()
        guard let claims = await claims(of: token, now: now),
            let active = try? await accounts.session(id: claims.sessionID, now: now), active.userID == claims.userID,
            !active.user.isDisabled
        else { return nil }
        if active.session.lastUsedAt.map({ now.timeIntervalSince($0) >= Self.touchInterval }) ?? true {
            try? await accounts.touchSession(id: active.session.id, at: now)
        }
        return Identity(user: active.user, sessionID: active.session.id, viaBearer: viaBearer)
    }

    /// The user's live sessions, most recently used first.
    public func sessions(userID: UserID) async throws -> [SessionDetails] {
        try await accounts.sessions(userID: userID, now: now())
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

    /// Ends one session of this user's; `.notFound` when the user has no session with this id.
    public func signOut(sessionID: String, userID: UserID) async throws(StoreError) {
        try await accounts.deleteSession(id: sessionID, userID: userID)
    }

    /// Ends every session of a user.
    public func signOutEverywhere(userID: UserID) async throws {
        try await accounts.deleteSessions(userID: userID)
    }
}
