import Foundation
import Testing

@testable import ParleyServer

/// Behind a reverse proxy, the client's address comes from `X-Forwarded-For` (and the scheme from
/// `X-Forwarded-Proto`) only when the peer is a trusted proxy, read from the right so that a client cannot choose it.
@Suite("Security: trusted proxies")
struct TrustedProxyTests {
    @Test("lists of addresses and CIDR ranges parse; anything else is refused")
    func parsing() throws {
        let proxies = try #require(TrustedProxies(list: "127.0.0.1, 10.0.0.0/8 192.168.1.0/24,::1,fd00::/8"))
        for trusted in ["127.0.0.1", "10.1.2.3", "192.168.1.254", "::1", "fd12::5", "::ffff:10.9.9.9"] {
            #expect(proxies.trusts(trusted), "\(trusted)")
        }
        for untrusted in ["127.0.0.2", "11.0.0.1", "192.168.2.1", "::2", "fe80::1", "unknown", "", "10.0.0.1x"] {
            #expect(!proxies.trusts(untrusted), "\(untrusted)")
        }
        for bad in [
            "", " , ", "10.0.0.0/33", "::/129", "10.0.0.0/-1", "10.0.0.0/8/8", "localhost", "10.0.0", "1.2.3.4/x",
        ] {
            #expect(TrustedProxies(list: bad) == nil, "\(bad)")
        }
        #expect(
            try ServerSettings(environment: ["PARLEY_TRUSTED_PROXIES": "127.0.0.1"]).trustedProxies
                == TrustedProxies(list: "127.0.0.1"))
        #expect(throws: SettingsError.self) { try ServerSettings(environment: ["PARLEY_TRUSTED_PROXIES": "nginx"]) }
    }

    @Test(
        "the client is the right-most untrusted hop, from a trusted peer only; spoofed and malformed hops cannot choose it",
        arguments: [
            ("127.0.0.1", ["203.0.113.5"], "203.0.113.5"),
            // A client's own X-Forwarded-For is to the left of what the proxy appends.
            ("127.0.0.1", ["198.51.100.1, 203.0.113.5"], "203.0.113.5"),
            ("127.0.0.1", ["198.51.100.1", "203.0.113.5"], "203.0.113.5"),
            // Two proxies in a row: the inner one is trusted, so the hop before it is the client.
            ("127.0.0.1", ["203.0.113.5, 10.0.0.7"], "203.0.113.5"),
            ("127.0.0.1", ["10.0.0.8, 10.0.0.7"], "10.0.0.8"),
            // An untrusted peer's header is ignored.
            ("203.0.113.9", ["198.51.100.1"], "203.0.113.9"),
            // Malformed: the nearest trusted hop stands.
            ("127.0.0.1", ["garbage"], "127.0.0.1"),
            ("127.0.0.1", ["203.0.113.5, <script>, 10.0.0.7"], "10.0.0.7"),
            ("127.0.0.1", [""], "127.0.0.1"),
            ("127.0.0.1", [], "127.0.0.1"),
            // Ports and brackets are what proxies write too; the address is canonical.
            ("127.0.0.1", ["203.0.113.5:4711"], "203.0.113.5"),
            ("127.0.0.1", ["[2001:db8::1]:443"], "2001:db8::1"),
            ("127.0.0.1", ["2001:DB8:0::1"], "2001:db8::1"),
            ("127.0.0.1", ["::ffff:203.0.113.5"], "203.0.113.5"),
        ])
    func clientAddress(peer: String, forwardedFor: [String], client: String) throws {
        let proxies = try #require(TrustedProxies(list: "127.0.0.1, 10.0.0.0/8"))
        #expect(proxies.clientAddress(peer: peer, forwardedFor: forwardedFor) == client)
        #expect(TrustedProxies.none.clientAddress(peer: peer, forwardedFor: forwardedFor) == peer)
    }

    @Test("HTTPS is believed from a trusted peer's last X-Forwarded-Proto only")
    func forwardedScheme() throws {
        let proxies = try #require(TrustedProxies(list: "127.0.0.1"))
        #expect(proxies.forwardedHTTPS(peer: "127.0.0.1", forwardedProto: ["https"]))
        #expect(proxies.forwardedHTTPS(peer: "127.0.0.1", forwardedProto: ["http, HTTPS"]))
        #expect(!proxies.forwardedHTTPS(peer: "127.0.0.1", forwardedProto: ["https, http"]))
        #expect(!proxies.forwardedHTTPS(peer: "127.0.0.1", forwardedProto: []))
        #expect(!proxies.forwardedHTTPS(peer: "203.0.113.1", forwardedProto: ["https"]))
    }

    @Test(
        "behind a trusted proxy one visitor's failed sign-ins throttle that visitor only, and X-Forwarded-Proto: https makes the cookies Secure"
    )
    func throttlesPerForwardedClient() async throws {
        try await withTestServer(configure: { $0.trustedProxies = try #require(TrustedProxies(list: "127.0.0.1")) }) {
            server in
            var owner = server.browser()
            _ = try await owner.signUp("owner@example.com")
            var attacker = server.browser()
            let from = [("X-Forwarded-For", "203.0.113.66")]
            for index in 0..<10 {
                _ = try await attacker.get("/login", headers: from)
                #expect(
                    try await attacker.post(
                        "/login", form: ["email": "nobody\(index)@example.com", "password": "guess guess"],
                        headers: from
                    ).status == 401)
            }
            _ = try await attacker.get("/login", headers: from)
            #expect(
                try await attacker.post(
                    "/login", form: ["email": "owner@example.com", "password": "correct horse battery"], headers: from
                ).status == 429)
            // A spoofed hop in front changes nothing: the proxy's own hop is the one read.
            #expect(
                try await attacker.post(
                    "/login", form: ["email": "owner@example.com", "password": "correct horse battery"],
                    headers: [("X-Forwarded-For", "198.51.100.1, 203.0.113.66")]
                ).status == 429)
            var other = server.browser()
            #expect(try await other.signIn("owner@example.com").status == 303)
            var secure = server.browser()
            let page = try await secure.get("/login", headers: [("X-Forwarded-Proto", "https")])
            #expect(
                page.headers[canonicalForm: "set-cookie"].contains {
                    $0.hasPrefix("__Host-parley_csrf=") && $0.contains("Secure")
                })
        }
    }

    @Test("without trusted proxies X-Forwarded-For is ignored: failures key on the socket's peer")
    func headersIgnoredWithoutTrust() async throws {
        try await withTestServer { server in
            var attacker = server.browser()
            for index in 0..<10 {
                _ = try await attacker.get("/login")
                let headers = [("X-Forwarded-For", "203.0.113.\(index)")]
                #expect(
                    try await attacker.post(
                        "/login", form: ["email": "nobody@example.com", "password": "guess guess"], headers: headers
                    ).status == 401)
            }
            _ = try await attacker.get("/login")
            #expect(
                try await attacker.post(
                    "/login", form: ["email": "nobody@example.com", "password": "guess guess"],
                    headers: [("X-Forwarded-For", "198.51.100.200")]
                ).status == 429)
        }
    }
}
