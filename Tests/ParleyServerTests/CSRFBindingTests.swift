import Foundation
import Testing

@testable import ParleyServer

/// The CSRF token is bound to the session: a token someone else chose, or one made for another session (or for none),
/// is refused even when the cookie and the form agree.
@Suite("Security: CSRF tokens bound to the session")
struct CSRFBindingTests {
    @Test(
        "a signed-in victim's cookie with an attacker-chosen CSRF cookie and the same value in the form gets 403; nothing changes"
    )
    func plantedTokenIsRefused() async throws {
        try await withTestServer { server in
            var victim = server.browser()
            _ = try await victim.signUp("victim@example.com")
            let conversation = try await victim.createConversation(content: "kept")
            var attacker = server.browser()
            _ = try await attacker.get("/login")
            let attackers = try #require(attacker.csrfToken)
            for planted in [attackers, String(repeating: "a", count: 96), "0123456789abcdef"] {
                var forged = victim
                forged.cookies["parley_csrf"] = planted
                let response = try await forged.post("/c/\(conversation)/delete", form: ["csrf_token": planted])
                #expect(response.status == 403, "\(planted)")
            }
            #expect(try await victim.get("/c/\(conversation)").status == 200)
        }
    }

    @Test("the token from before sign-in stops working at sign-in, and the signed-in one at sign-out")
    func tokenRotates() async throws {
        try await withTestServer { server in
            var browser = server.browser()
            _ = try await browser.get("/signup")
            let anonymous = try #require(browser.csrfToken)
            _ = try await browser.post(
                "/signup", form: ["email": "user@example.com", "password": "correct horse battery"])
            let signedIn = try #require(browser.csrfToken)
            #expect(signedIn != anonymous)
            var stale = browser
            stale.cookies["parley_csrf"] = anonymous
            #expect(
                try await stale.post("/c", form: ["content": "", "model": "mock-fast", "csrf_token": anonymous]).status
                    == 403)
            #expect(try await browser.post("/c", form: ["content": "", "model": "mock-fast"]).status == 303)
            _ = try await browser.post("/logout")
            #expect(try #require(browser.csrfToken) != signedIn)
            #expect(CSRFTokens(secret: "s").isValid(signedIn, sessionID: "") == false)
        }
    }

    @Test("a token is valid only for the session it was made for, under the key it was made with")
    func tokenRule() {
        let tokens = CSRFTokens(secret: "one secret")
        let token = tokens.make(sessionID: "session-a")
        #expect(tokens.isValid(token, sessionID: "session-a"))
        #expect(!tokens.isValid(token, sessionID: "session-b"))
        #expect(!tokens.isValid(token, sessionID: ""))
        #expect(!CSRFTokens(secret: "another secret").isValid(token, sessionID: "session-a"))
        #expect(!tokens.isValid(String(token.dropLast()) + (token.last == "0" ? "1" : "0"), sessionID: "session-a"))
        #expect(!tokens.isValid("", sessionID: ""))
        #expect(tokens.make(sessionID: "session-a") != token)
    }
}
