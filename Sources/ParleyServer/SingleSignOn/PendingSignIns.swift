import Crypto
import Foundation
import Synchronization

/// A sign-in sent to the identity provider and not yet back: what the callback must match and where it goes next.
struct PendingSignIn: Sendable, Equatable {
    /// The PKCE code verifier (RFC 7636), whose SHA-256 went out as the challenge.
    let codeVerifier: String
    let nonce: String
    /// The local path to open after signing in.
    let next: String
    let expiresAt: Date

    /// The S256 code challenge for the verifier.
    var codeChallenge: String {
        Data(SHA256.hash(data: Array(codeVerifier.utf8))).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// The sign-ins on their way through the identity provider, by `state`: each may be taken back once, within ten
/// minutes. Holds at most `capacity`; when full, the expired ones go, then the oldest.
final class PendingSignIns: Sendable {
    /// How long a person has at the identity provider.
    static let lifetime: TimeInterval = 600

    private let capacity: Int
    private let pending = Mutex<[String: PendingSignIn]>([:])

    /// Creates an empty set holding at most `capacity` sign-ins.
    init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    /// Starts a sign-in going to `next`; returns its state and what it must match.
    func begin(next: String, now: Date) -> (state: String, signIn: PendingSignIn) {
        let state = RandomToken.make(bytes: 32)
        let signIn = PendingSignIn(
            codeVerifier: RandomToken.make(bytes: 32), nonce: RandomToken.make(bytes: 16), next: next,
            expiresAt: now.addingTimeInterval(Self.lifetime))
        pending.withLock { pending in
            if pending.count >= capacity {
                pending = pending.filter { $0.value.expiresAt > now }
                while pending.count >= capacity,
                    let oldest = pending.min(by: { $0.value.expiresAt < $1.value.expiresAt })
                {
                    pending[oldest.key] = nil
                }
            }
            pending[state] = signIn
        }
        return (state, signIn)
    }

    /// The sign-in `state` names, removed so it cannot be finished twice; nil when unknown, used or expired.
    func finish(state: String, now: Date) -> PendingSignIn? {
        guard let signIn = pending.withLock({ $0.removeValue(forKey: state) }), signIn.expiresAt > now else {
            return nil
        }
        return signIn
    }
}
