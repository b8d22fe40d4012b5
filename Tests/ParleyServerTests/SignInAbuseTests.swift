import Foundation
import ParleyCore
import Testing

@testable import ParleyServer

/// Sign-in and sign-up as an attacker uses them: to burn the server's CPU, to learn which emails have accounts, and to
/// lock an owner out.
@Suite("Security: sign-in abuse")
struct SignInAbuseTests {
    @Test(
        "with first-user sign-up closed by an account, a sign-up is refused before its password is hashed: it takes under half a wrong password's check"
    )
    func closedSignupHashesNothing() async throws {
        // Cost 15: a check takes seconds, which a loaded machine's delays to a refusal that hashes nothing do not
        // reach.
        try await withTestServer(configure: { $0.bcryptCost = 15 }) { server in
            var owner = server.browser()
            #expect(try await owner.signUp("owner@example.com").status == 303)
            var visitor = server.browser()
            var signups: [Duration] = [], logins: [Duration] = []
            for index in 0..<2 {
                signups.append(
                    try await Self.timed {
                        let refused = try await visitor.post(
                            "/signup", form: ["email": "new\(index)@example.com", "password": "a long password"])
                        #expect(refused.status == 403)
                    })
                logins.append(
                    try await Self.timed {
                        let refused = try await visitor.signIn("owner@example.com", password: "wrong password")
                        #expect(refused.status == 401)
                    })
            }
            #expect(Self.median(signups) * 2 < Self.median(logins), "sign-up \(signups), login \(logins)")
        }
    }

    @Test(
        "one address gets 429 with Retry-After after ten sign-ups within five minutes; the accounts it made stay, nothing more is created"
    )
    func signupThrottle() async throws {
        try await withTestServer(configure: {
            $0.signup = .open
            $0.signupRateLimit = 10
        }) { server in
            var visitor = server.browser()
            for index in 0..<10 {
                _ = try await visitor.get("/signup")
                #expect(
                    try await visitor.post(
                        "/signup", form: ["email": "user\(index)@example.com", "password": "a long password"]
                    ).status == 303)
                visitor = server.browser()
            }
            _ = try await visitor.get("/signup")
            let refused = try await visitor.post(
                "/signup", form: ["email": "one-more@example.com", "password": "a long password"])
            #expect(refused.status == 429)
            #expect(Int(refused.headers.first(name: "retry-after") ?? "") ?? 0 > 0)
            #expect(try await visitor.signIn("one-more@example.com", password: "a long password").status == 401)
            #expect(try await visitor.signIn("user9@example.com", password: "a long password").status == 303)
        }
    }

    @Test("PARLEY_SIGNUP_RATE: 10 by default, 0 for no limit, anything else refused")
    func signupRateSetting() throws {
        #expect(try ServerSettings(environment: [:]).signupRateLimit == 10)
        #expect(try ServerSettings(environment: ["PARLEY_SIGNUP_RATE": "0"]).signupRateLimit == nil)
        #expect(try ServerSettings(environment: ["PARLEY_SIGNUP_RATE": "3"]).signupRateLimit == 3)
        #expect(throws: SettingsError.self) { try ServerSettings(environment: ["PARLEY_SIGNUP_RATE": "-1"]) }
    }

    @Test(
        "an unknown email takes as long to refuse as a known email's wrong password: the medians differ by less than a third"
    )
    func unknownEmailTakesAsLong() async throws {
        try await withTestServer(configure: { $0.bcryptCost = 10 }) { server in
            var owner = server.browser()
            #expect(try await owner.signUp("known@example.com").status == 303)
            var known: [Duration] = [], unknown: [Duration] = []
            // Four of each, alternated, under the ten failures that throttle an address.
            for index in 0..<4 {
                var visitor = server.browser()
                known.append(
                    try await Self.timed {
                        let refused = try await visitor.signIn("known@example.com", password: "wrong password")
                        #expect(refused.status == 401)
                    })
                unknown.append(
                    try await Self.timed {
                        let refused = try await visitor.signIn("nobody\(index)@example.com", password: "wrong password")
                        #expect(refused.status == 401)
                    })
            }
            let (a, b) = (Self.median(known), Self.median(unknown))
            #expect((a > b ? a - b : b - a) * 3 < max(a, b), "known \(known), unknown \(unknown)")
        }
    }

    @Test(
        "ten wrong passwords for one account from ten addresses do not lock its owner out: the owner, from an address with no failure, signs in; a failing address must wait"
    )
    func accountCannotBeLockedOut() async throws {
        try await withTestServer(configure: { $0.trustedProxies = try #require(TrustedProxies(list: "127.0.0.1")) }) {
            server in
            var owner = server.browser()
            #expect(try await owner.signUp("victim@example.com").status == 303)
            for index in 1...10 {
                var attacker = server.browser()
                let guess = try await Self.signIn(
                    &attacker, from: "203.0.113.\(index)", password: "guess number \(index)")
                #expect(guess.status == 401)
            }
            var again = server.browser()
            #expect(try await Self.signIn(&again, from: "203.0.113.1", password: "correct horse battery").status == 429)
            var elsewhere = server.browser()
            #expect(
                try await Self.signIn(&elsewhere, from: "198.51.100.7", password: "correct horse battery").status == 303
            )
            let api = try await APIClient(server: server, token: nil).request(
                .POST, "/api/login", json: ["email": "victim@example.com", "password": "correct horse battery"],
                headers: [("X-Forwarded-For", "198.51.100.8")])
            #expect(api.status == 200)
        }
    }

    @Test(
        "the account throttle: below ten failures anyone may try; past them a failing address waits 1 s, then 2, 4, ... (at most the window) after the last failure; a clean address never waits; all is forgotten after five minutes"
    )
    func accountThrottleRule() async {
        let throttle = LoginThrottle(limit: 10, window: 300)
        let start = Date(timeIntervalSince1970: 1_000_000)
        for index in 0..<9 {
            await throttle.recordFailure(email: "Victim@example.com", address: "a\(index)", now: start)
        }
        #expect(await throttle.retryAfter(email: "victim@example.com", address: "a0", now: start) == nil)
        await throttle.recordFailure(email: "victim@example.com", address: "a9", now: start)
        #expect(await throttle.retryAfter(email: "victim@example.com", address: "a0", now: start) == 1)
        #expect(await throttle.retryAfter(email: "victim@example.com", address: "clean", now: start) == nil)
        #expect(await throttle.retryAfter(email: "other@example.com", address: "a0", now: start) == nil)
        await throttle.recordFailure(email: "victim@example.com", address: "a0", now: start.addingTimeInterval(2))
        await throttle.recordFailure(email: "victim@example.com", address: "a1", now: start.addingTimeInterval(2))
        #expect(
            await throttle.retryAfter(email: "victim@example.com", address: "a2", now: start.addingTimeInterval(2)) == 4
        )
        #expect(
            await throttle.retryAfter(email: "victim@example.com", address: "a2", now: start.addingTimeInterval(5)) == 1
        )
        #expect(
            await throttle.retryAfter(email: "victim@example.com", address: "a2", now: start.addingTimeInterval(6))
                == nil)
        for _ in 0..<20 {
            await throttle.recordFailure(email: "victim@example.com", address: "b", now: start.addingTimeInterval(10))
        }
        #expect(
            await throttle.retryAfter(email: "victim@example.com", address: "a3", now: start.addingTimeInterval(10))
                == 300)
        #expect(
            await throttle.retryAfter(email: "victim@example.com", address: "clean", now: start.addingTimeInterval(10))
                == nil
        )
        #expect(
            await throttle.retryAfter(email: "victim@example.com", address: "a3", now: start.addingTimeInterval(311))
                == nil)
    }

    /// Signs in through the form as a request forwarded by the trusted proxy for `address`.
    private static func signIn(_ browser: inout Browser, from address: String, password: String) async throws
        -> TestResponse
    {
        _ = try await browser.get("/login", headers: [("X-Forwarded-For", address)])
        return try await browser.post(
            "/login", form: ["email": "victim@example.com", "password": password],
            headers: [("X-Forwarded-For", address)])
    }

    /// How long `body` took.
    private static func timed(_ body: () async throws -> Void) async throws -> Duration {
        let start = ContinuousClock.now
        try await body()
        return start.duration(to: .now)
    }

    /// The middle value (the upper of the two middle ones for an even count).
    private static func median(_ values: [Duration]) -> Duration { values.sorted()[values.count / 2] }
}
