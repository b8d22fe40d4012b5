import Crypto
import Foundation
import ParleyCore

extension PendingSignIn {
    /// The S256 code challenge for the verifier.
    var codeChallenge: String {
        Data(SHA256.hash(data: Array(codeVerifier.utf8))).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// The sign-ins on their way through the identity provider, kept in the database by the SHA-256 of their `state`
/// (any instance may take the callback): each may be taken back once, within ten minutes.
struct PendingSignIns: Sendable {
    /// How long a person has at the identity provider.
    static let lifetime: TimeInterval = 600

    let store: any SingleSignOnStore

    /// Starts a sign-in going to `next`; returns its state and what it must match.
    func begin(next: String, now: Date) async throws(StoreError) -> (state: String, signIn: PendingSignIn) {
        let state = RandomToken.make(bytes: 32)
        let signIn = PendingSignIn(
            codeVerifier: RandomToken.make(bytes: 32), nonce: RandomToken.make(bytes: 16), next: next,
            expiresAt: now.addingTimeInterval(Self.lifetime))
        try await store.savePendingSignIn(signIn, stateDigest: Self.digest(state), now: now)
        return (state, signIn)
    }

    /// The sign-in `state` names, removed so it cannot be finished twice; nil when unknown, used or expired (or the
    /// database failed).
    func finish(state: String, now: Date) async -> PendingSignIn? {
        try? await store.takePendingSignIn(stateDigest: Self.digest(state), now: now)
    }

    /// The hex SHA-256 a state is kept under.
    private static func digest(_ state: String) -> String {
        SHA256.hash(data: Array(state.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
