import Foundation
import NIOHTTP1
import Testing

@testable import ParleyServer

/// `/metrics` shows token and cost counts per model: without a token only this machine reads it, and a client cannot
/// add label values without end.
@Suite("Security: metrics exposure")
struct MetricsExposureTests {
    @Test("without PARLEY_METRICS_TOKEN, /metrics answers a direct loopback request and refuses one a proxy forwarded")
    func loopbackOnly() async throws {
        try await withTestServer(configure: { $0.trustedProxies = try #require(TrustedProxies(list: "127.0.0.1")) }) {
            server in
            var browser = server.browser()
            #expect(try await browser.get("/metrics").status == 200)
            let forwarded = try await browser.get("/metrics", headers: [("X-Forwarded-For", "203.0.113.5")])
            #expect(forwarded.status == 403)
            #expect(forwarded.body.contains("PARLEY_METRICS_TOKEN") && !forwarded.body.contains("parley_"))
            #expect(try await browser.get("/metrics", headers: [("X-Forwarded-For", "127.0.0.1")]).status == 403)
        }
    }

    @Test("a request with a method that is not HTTP's gets 501 and adds no label to /metrics")
    func unknownMethodsAddNoSeries() async throws {
        try await withTestServer { server in
            var browser = server.browser()
            for method in ["PURGE", "PROPFIND", "MKCOL"] {
                #expect(try await browser.send(HTTPMethod(rawValue: method), "/c").status == 501, "\(method)")
            }
            #expect(try await browser.send(.GET, "/healthz").status == 200)
            let metrics = try await browser.get("/metrics").body
            #expect(metrics.contains("http_request_method=\"GET\""))
            for method in ["PURGE", "PROPFIND", "MKCOL"] { #expect(!metrics.contains("\"\(method)\""), "\(method)") }
        }
    }
}
