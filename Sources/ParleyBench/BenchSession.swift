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

    /// Signs up the bench user (the first account) or signs in, and returns the session.
    static func start(client: HTTPClient, parley: String) async throws -> BenchSession {
        var page = HTTPClientRequest(url: parley + "/signup")
        let response = try await client.execute(page, timeout: .seconds(10))
        let csrf = response.headers["set-cookie"].compactMap { cookie -> String? in
            guard cookie.hasPrefix("parley_csrf=") else { return nil }
            return String(cookie.dropFirst("parley_csrf=".count).prefix { $0 != ";" })
        }.first ?? ""
        _ = try await response.body.collect(upTo: 1 << 20)
        page = HTTPClientRequest(url: parley + "/signup")
        page.method = .POST
        page.headers.add(name: "Cookie", value: "parley_csrf=\(csrf)")
        page.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        page.body = .bytes(ByteBuffer(string: "csrf_token=\(csrf)&email=bench%40example.com&password=bench+password+1"))
        _ = try await client.execute(page, timeout: .seconds(10)).body.collect(upTo: 1 << 20)
        let login = try await JSONCall.post(client, parley + "/api/login", token: nil, body: ["email": email, "password": Self.password])
        guard let token = login["token"] as? String else { throw BenchError("sign-in failed: \(login)") }
        return BenchSession(client: client, parley: parley, token: token)
    }

    /// Creates `count` conversations with the model.
    func conversations(count: Int, model: String = "mock-fast") async throws -> [Int] {
        var ids: [Int] = []
        for _ in 0..<count {
            let created = try await JSONCall.post(client, parley + "/api/conversations", token: token, body: ["model": model])
            guard let id = created["id"] as? Int else { throw BenchError("creating a conversation failed: \(created)") }
            ids.append(id)
        }
        return ids
    }
}

/// A JSON POST and its decoded answer.
enum JSONCall {
    static func post(_ client: HTTPClient, _ url: String, token: String?, body: [String: Any]) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        let response = try await client.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return (try? JSONSerialization.jsonObject(with: Data(bytes.readableBytesView))) as? [String: Any] ?? [:]
    }
}

/// A bench failure.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
