import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

/// Form and JSON bodies as the routes read them: by content type, with a clear error for what does not read.
@Suite("Form decoding")
struct FormDecodingTests {
    /// A POST with the Bearer token and a raw body; `length: nil` sends it chunked, without a `Content-Length`.
    private static func post(
        _ api: APIClient, _ path: String, body: String, contentType: String?, chunked: Bool = false
    ) async throws -> TestResponse {
        var request = HTTPClientRequest(url: api.server.baseURL + path)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(api.token ?? "")")
        request.headers.add(name: "Accept", value: "application/json")
        if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
        let bytes = Array(body.utf8)
        request.body = .bytes(bytes, length: chunked ? .unknown : .known(Int64(bytes.count)))
        let response = try await api.server.client.execute(request, timeout: .seconds(30))
        let collected = try await response.body.collect(upTo: 1 << 20)
        return TestResponse(
            status: Int(response.status.code), headers: response.headers, body: String(buffer: collected))
    }

    private static func title(_ api: APIClient, _ id: Int64) async throws -> String? {
        let listed = try await api.conversations()
        return listed.first { ($0["id"] as? Int).map(Int64.init) == id }?["title"] as? String
    }

    @Test("a repeated field, a broken escape, a wrong type or an unknown content type is refused; nothing changes")
    func malformedFormsAreRefused() async throws {
        try await withTestServer { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let api = try await APIClient.signIn(server, email: "user@example.com")
            let id = try await api.createConversation()
            let rename = "/c/\(id)/rename"
            let form = "application/x-www-form-urlencoded"
            #expect(try await Self.post(api, rename, body: "title=Kept", contentType: form).status == 204)

            for body in ["title=A&title=B", "title=%ZZ", "title[=x"] {
                let response = try await Self.post(api, rename, body: body, contentType: form)
                #expect(response.status == 400, "\(body)")
                #expect(response.body.contains(#""code":"malformed_request""#), "\(body)")
            }
            #expect(try await Self.post(api, rename, body: "title=X", contentType: "text/plain").status == 415)
            #expect(
                try await Self.post(api, rename, body: #"{"title":7}"#, contentType: "application/json").status == 400)
            #expect(try await Self.title(api, id) == "Kept")

            // A form may come as JSON too; an empty POST without a content type reads as an empty form.
            #expect(
                try await Self.post(api, rename, body: #"{"title":"JSON"}"#, contentType: "application/json").status
                    == 204)
            #expect(try await Self.title(api, id) == "JSON")
            #expect(try await Self.post(api, "/c/\(id)/pin", body: "", contentType: nil).status == 204)
        }
    }

    @Test("a form larger than the limit is refused with 413, whether it states its length or comes chunked")
    func oversizedFormsAreRefused() async throws {
        try await withTestServer { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let api = try await APIClient.signIn(server, email: "user@example.com")
            let id = try await api.createConversation()
            let huge = "title=" + String(repeating: "x", count: 2_000_000)
            for chunked in [false, true] {
                let response = try await Self.post(
                    api, "/c/\(id)/rename", body: huge, contentType: "application/x-www-form-urlencoded",
                    chunked: chunked)
                #expect(response.status == 413, "chunked: \(chunked)")
            }
            #expect(try await Self.title(api, id) != String(repeating: "x", count: 2_000_000))
        }
    }
}
