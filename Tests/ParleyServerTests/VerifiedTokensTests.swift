import Foundation
import Testing

@testable import ParleyServer

/// The tokens whose signature was checked: found again until they expire, and never more than the capacity.
@Suite struct VerifiedTokensTests {
    @Test func aRememberedTokenIsFoundUntilItsExpiryAndAnUnknownOneNever() {
        let tokens = VerifiedTokens(capacity: 10)
        let now = Date()
        let claims = TokenClaims(userID: 7, sessionID: "s", expiresAt: now.addingTimeInterval(60))
        tokens.remember("a.b.c", claims)
        #expect(tokens.claims(of: "a.b.c", now: now) == claims)
        #expect(tokens.claims(of: "a.b.cx", now: now) == nil)
        #expect(tokens.claims(of: "a.b.c", now: now.addingTimeInterval(60)) == nil)
    }

    @Test func aFullSetForgetsWhatItHeldBeforeTakingMore() {
        let tokens = VerifiedTokens(capacity: 3)
        let now = Date()
        let claims = TokenClaims(userID: 1, sessionID: "s", expiresAt: now.addingTimeInterval(60))
        for name in ["t1", "t2", "t3", "t4"] { tokens.remember(name, claims) }
        #expect(["t1", "t2", "t3"].allSatisfy { tokens.claims(of: $0, now: now) == nil })
        #expect(tokens.claims(of: "t4", now: now) == claims)
    }
}
