import Testing

@testable import ParleyServer

/// The CSRF token as pages carry it: masked with a fresh pad each time, so compressed pages never repeat it.
@Suite struct CSRFTokenMaskTests {
    @Test("random tokens are lowercase hex of twice their bytes, never repeat, and use every digit in every position")
    func randomTokensAreHexAndUnpredictable() {
        for bytes in [1, 7, 8, 9, 16, 32] {
            let tokens = (0..<400).map { _ in RandomToken.make(bytes: bytes) }
            #expect(
                tokens.allSatisfy {
                    $0.utf8.count == 2 * bytes && $0.utf8.allSatisfy { "0123456789abcdef".utf8.contains($0) }
                })
            if bytes >= 8 { #expect(Set(tokens).count == tokens.count) }
            // Each of the token's hex positions takes all 16 digits over 400 tokens (a stuck or unfilled byte would
            // not).
            for position in 0..<(2 * bytes) {
                #expect(
                    Set(tokens.map { Array($0.utf8)[position] }).count == 16,
                    "position \(position) of \(bytes)-byte tokens")
            }
        }
    }

    @Test func everyMaskDiffersAndEachStandsForTheToken() {
        let token = RandomToken.make()
        let masks = (0..<20).map { _ in CSRFTokenMask.mask(token) }
        #expect(Set(masks).count == masks.count)
        #expect(masks.allSatisfy { !$0.contains(token) && $0.utf8.count == 2 * token.utf8.count })
        #expect(masks.allSatisfy { CSRFTokenMask.matches($0, token: token) })
        #expect(CSRFTokenMask.matches(token, token: token))  // the bare token (scripts, older pages) still works
    }

    @Test func anotherTokenATamperedMaskOrGarbageDoNotMatch() {
        let token = RandomToken.make(), other = RandomToken.make()
        let mask = CSRFTokenMask.mask(token)
        #expect(!CSRFTokenMask.matches(CSRFTokenMask.mask(other), token: token))
        var tampered = Array(mask)
        tampered[40] = tampered[40] == "0" ? "1" : "0"
        #expect(!CSRFTokenMask.matches(String(tampered), token: token))
        #expect(!CSRFTokenMask.matches("", token: token))
        #expect(!CSRFTokenMask.matches(String(repeating: "z", count: 64), token: token))
    }

    @Test("a page's masked token is accepted by a form post, and two pages carry different masks")
    func pagesCarryMaskedTokens() async throws {
        try await withTestServer { server in
            var browser = server.browser()
            _ = try await browser.signUp("masked@example.com")
            let first = try await browser.get("/settings").body, second = try await browser.get("/settings").body
            let pattern = /name="csrf_token" value="([0-9a-f]+)"/
            let one = try #require(first.firstMatch(of: pattern).map { String($0.1) })
            let two = try #require(second.firstMatch(of: pattern).map { String($0.1) })
            #expect(one != two && one != browser.csrfToken)
            let id = try await browser.createConversation(content: "")
            #expect(
                try await browser.post("/c/\(id)/rename", form: ["title": "Renamed", "csrf_token": one]).status == 303)
            #expect(
                try await browser.post(
                    "/c/\(id)/rename", form: ["title": "Again", "csrf_token": String(one.reversed())]
                ).status == 403)
        }
    }
}
