import AsyncHTTPClient
import Foundation
import NIOCore

/// A signed-in bench user and the conversations it streams in (one reply runs per conversation at a time).
struct BenchSession {
    let client: HTTPClient
    let parley: String
    let token: String
    /// The bench user's email address.
    static let email = "bench@example.com"
    /// The bench user's password.
    static let password = "bench password 1"

    /// Signs up a user (the bench user by default: the first account) or signs in, and returns the session; other
    /// users need `PARLEY_SIGNUP=open`.
    static func start(client: HTTPClient, parley: String, email: String = BenchSession.email) async throws
        -> BenchSession
    {
        var page = HTTPClientRequest(url: parley + "/signup")
        let response = try await client.execute(page, timeout: .seconds(10))
        let csrf =
            response.headers["set-cookie"].compactMap { cookie -> String? in
                guard cookie.hasPrefix("parley_csrf=") else { return nil }
                return String(cookie.dropFirst("parley_csrf=".count).prefix { $0 != ";" })
            }.first ?? ""
        _ = try await response.body.collect(upTo: 1 << 20)
        page = HTTPClientRequest(url: parley + "/signup")
        page.method = .POST
        page.headers.add(name: "Cookie", value: "parley_csrf=\(csrf)")
        page.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let field = email.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? email
        page.body = .bytes(ByteBuffer(string: "csrf_token=\(csrf)&email=\(field)&password=bench+password+1"))
        _ = try await client.execute(page, timeout: .seconds(10)).body.collect(upTo: 1 << 20)
        let login = try await JSONCall.post(
            client, parley + "/api/login", token: nil, body: ["email": email, "password": Self.password])
        guard let token = login["token"] as? String else { throw BenchError("sign-in failed: \(login)") }
        return BenchSession(client: client, parley: parley, token: token)
    }

    /// Creates `count` conversations with the model.
    func conversations(count: Int, model: String = "mock-fast") async throws -> [Int] {
        var ids: [Int] = []
        for _ in 0..<count {
            let created = try await JSONCall.post(
                client, parley + "/api/conversations", token: token, body: ["model": model])
            guard let id = created["id"] as? Int else { throw BenchError("creating a conversation failed: \(created)") }
            ids.append(id)
        }
        return ids
    }
}

/// JSON API calls and their decoded answers.
enum JSONCall {
    /// A JSON POST; its answer decoded (empty when it is not a JSON object).
    static func post(_ client: HTTPClient, _ url: String, token: String?, body: [String: Any]) async throws -> [String:
        Any]
    {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        return try await decoded(client, request, token: token).json
    }

    /// A GET that must answer 200; its answer decoded.
    static func get(_ client: HTTPClient, _ url: String, token: String?) async throws -> [String: Any] {
        let (status, json) = try await decoded(client, HTTPClientRequest(url: url), token: token)
        guard status == 200 else { throw BenchError("GET \(url) answered \(status)") }
        return json
    }

    /// A DELETE that must answer 204.
    static func delete(_ client: HTTPClient, _ url: String, token: String?) async throws {
        var request = HTTPClientRequest(url: url)
        request.method = .DELETE
        let status = try await decoded(client, request, token: token).status
        guard status == 204 else { throw BenchError("DELETE \(url) answered \(status)") }
    }

    /// Sends `request` with the bearer token; the status and the body decoded as a JSON object.
    private static func decoded(_ client: HTTPClient, _ request: HTTPClientRequest, token: String?) async throws -> (
        status: UInt, json: [String: Any]
    ) {
        var request = request
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        let response = try await client.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        let json = (try? JSONSerialization.jsonObject(with: Data(bytes.readableBytesView))) as? [String: Any] ?? [:]
        return (response.status.code, json)
    }
}

/// A bench failure.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
