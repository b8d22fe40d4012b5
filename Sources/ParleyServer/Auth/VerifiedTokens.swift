import Foundation
import ParleyCore
import Synchronization

/// What a session token's checked signature proves: whose session it names, and until when.
struct TokenClaims: Sendable, Equatable {
    let userID: UserID
    let sessionID: String
    let expiresAt: Date
}

/// Session tokens whose signature has been checked, so that the next request with the same token skips decoding
/// and checking it again: a token's bytes fix its claims, and the expiry is checked on every use. Holds at most
/// `capacity` tokens and forgets them all when full.
final class VerifiedTokens: Sendable {
    private let capacity: Int
    private let claims = Mutex<[String: TokenClaims]>([:])

    /// Creates an empty set that holds at most `capacity` tokens.
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The claims of a token checked before, unless they have expired by `now`.
    func claims(of token: String, now: Date) -> TokenClaims? {
        guard let found = claims.withLock({ $0[token] }), found.expiresAt > now else { return nil }
        return found
    }

    /// Remembers a token whose signature has just been checked.
    func remember(_ token: String, _ verified: TokenClaims) {
        claims.withLock { claims in
            if claims.count >= capacity { claims.removeAll(keepingCapacity: true) }
            claims[token] = verified
        }
    }
}
