import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A finished HTTP response, body included.
struct TestResponse: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: String
    /// The body's bytes as received (for binary responses).
    var bytes: [UInt8] = []

    /// The body decoded as JSON.
    func json() throws -> [String: Any] {
        (try JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
    }

    /// The `Location` header.
    var location: String? { headers.first(name: "location") }
}

/// An HTTP client that keeps cookies like a browser and fills in the CSRF field from its cookie.
struct Browser: Sendable {
    let server: TestServer
    var cookies: [String: String] = [:]

    /// The CSRF token a page would embed (the double-submit cookie's value, under its name for plain or `Secure`
    /// cookies).
    var csrfToken: String? { cookies["parley_csrf"] ?? cookies["__Host-parley_csrf"] }

    /// A GET request.
    mutating func get(_ path: String, headers: [(String, String)] = []) async throws -> TestResponse {
        try await send(.GET, path, headers: headers)
    }

    /// A form POST, with the CSRF field added unless `csrf` is false.
    mutating func post(
        _ path: String, form: [String: String] = [:], csrf: Bool = true,
        headers: [(String, String)] = []
    ) async throws -> TestResponse {
        var form = form
        if csrf, form["csrf_token"] == nil, let token = csrfToken { form["csrf_token"] = token }
        if csrf, csrfToken == nil {
            _ = try await get("/login")
            if form["csrf_token"] == nil, let token = csrfToken { form["csrf_token"] = token }
        }
        return try await send(
            .POST, path, headers: [("Content-Type", "application/x-www-form-urlencoded")] + headers,
            body: Self.encode(form))
    }

    /// Signs up (the first account becomes admin) and keeps the session cookie.
    mutating func signUp(_ email: String, password: String = "correct horse battery") async throws -> TestResponse {
        _ = try await get("/signup")
        return try await post("/signup", form: ["email": email, "password": password])
    }

    /// Signs in through the form.
    mutating func signIn(_ email: String, password: String = "correct horse battery") async throws -> TestResponse {
        _ = try await get("/login")
        return try await post("/login", form: ["email": email, "password": password])
    }

    /// Creates a conversation through the form; returns its id.
    mutating func createConversation(content: String = "", model: String = "mock-fast") async throws -> Int64 {
        let response = try await post("/c", form: ["content": content, "model": model])
        guard response.status == 303, let location = response.location,
            let id = Int64(location.split(separator: "/").last ?? "")
        else {
            throw TestFailure("creating a conversation answered \(response.status): \(response.body.prefix(300))")
        }
        return id
    }

    /// Any request, with cookies.
    mutating func send(_ method: HTTPMethod, _ path: String, headers: [(String, String)] = [], body: String? = nil)
        async throws -> TestResponse
    {
        try await send(method, path, headers: headers, bytes: body.map { ByteBuffer(string: $0) })
    }

    /// Any request with a binary body, with cookies.
    mutating func send(_ method: HTTPMethod, _ path: String, headers: [(String, String)] = [], bytes: ByteBuffer?)
        async throws -> TestResponse
    {
        var request = HTTPClientRequest(url: server.baseURL + path)
        request.method = method
        if !cookies.isEmpty {
            request.headers.add(name: "Cookie", value: cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
        }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let bytes { request.body = .bytes(bytes) }
        let response = try await server.client.execute(request, timeout: .seconds(30))
        for header in response.headers[canonicalForm: "set-cookie"] {
            let pair = header.split(separator: ";")[0].split(
                separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2 else { continue }
            let name = String(pair[0]), value = String(pair[1])
            if value.isEmpty || header.lowercased().contains("max-age=0") {
                cookies[name] = nil
            } else {
                cookies[name] = value
            }
        }
        let body = try await response.body.collect(upTo: 32 << 20)
        return TestResponse(
            status: Int(response.status.code), headers: response.headers, body: String(buffer: body),
            bytes: Array(body.readableBytesView))
    }

    /// URL-encodes form fields.
    static func encode(_ form: [String: String]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._*")
        return form.map { key, value in
            key.addingPercentEncoding(withAllowedCharacters: allowed)! + "=" + value.addingPercentEncoding(
                withAllowedCharacters: allowed)!
        }.joined(separator: "&")
    }
}

/// A failure a test helper reports.
struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
