import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import ParleyServer

/// Router-level checks with HummingbirdTesting (no sockets): pages, redirects, CSRF and errors.
@Suite("Router")
struct RouterTests {
    @Test("signed-out pages: login form with a CSRF field, redirects to sign in, 404 page, health")
    func signedOut() async throws {
        let directory = try makeTempDirectory()
        var settings = testSettings(dataDirectory: directory, mockPort: 9)
        settings.environment = [:]
        let app = try await buildApplication(settings: settings)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await app.http.test(.router) { client in
            try await client.execute(uri: "/login", method: .get) { response in
                #expect(response.status == .ok)
                let body = String(buffer: response.body)
                #expect(body.contains(#"name="csrf_token""#))
                #expect(
                    response.headers[values: .setCookie].contains {
                        $0.hasPrefix("parley_csrf=") && $0.contains("HttpOnly")
                    })
                #expect(body.contains("parley-demo"))
            }
            try await client.execute(uri: "/c", method: .get) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/login")
            }
            try await client.execute(uri: "/c/1", method: .get, headers: [.accept: "application/json"]) { response in
                #expect(response.status == .unauthorized)
            }
            try await client.execute(uri: "/missing", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(String(buffer: response.body).contains("404"))
            }
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(
                uri: "/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "email=a%40b.co&password=x")
            ) { response in
                #expect(response.status == .forbidden)
            }
            try await client.execute(
                uri: "/api/login", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: "{not json")
            ) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains(#""code":"malformed_request""#))
            }
        }
    }
}
