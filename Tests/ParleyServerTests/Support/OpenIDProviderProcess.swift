import AsyncHTTPClient
import Foundation
import NIOCore

/// A real OpenID Connect provider (PyPI's oidc-provider-mock, from the project's `.venv-test`, started by
/// Tests/PythonSupport/oidc_provider.py) on a loopback port, with its people set through its own API.
struct OpenIDProviderProcess: Sendable {
    let port: Int
    let client: HTTPClient

    /// The issuer Parley is configured with.
    var issuer: String { "http://127.0.0.1:\(port)" }

    /// Runs `body` with a provider started for it, stopped afterwards whatever happened.
    static func with(_ body: (OpenIDProviderProcess) async throws -> Void) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestServer.repositoryRoot + "/.venv-test/bin/python")
        process.arguments = [TestServer.repositoryRoot + "/Tests/PythonSupport/oidc_provider.py"]
        process.environment = ["PATH": "/usr/bin:/bin", "NO_COLOR": "1"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let line = try await CrashRecoveryTests.firstLine(of: output.fileHandleForReading)
        guard let port = Int(line.dropFirst("port ".count).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestFailure("the OpenID provider did not say its port: \(line)")
        }
        let client = makeTestClient()
        do {
            try await body(OpenIDProviderProcess(port: port, client: client))
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    /// Sets the claims the provider gives the person `subject` (through its `PUT /users/{sub}`).
    func setPerson(
        _ subject: String, email: String, verified: Bool = true, groups: [String] = [], name: String? = nil
    ) async throws {
        var claims: [String: Any] = ["email": email, "email_verified": verified, "groups": groups]
        claims["name"] = name
        var request = HTTPClientRequest(url: issuer + "/users/" + subject)
        request.method = .PUT
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: claims)))
        let response = try await client.execute(request, timeout: .seconds(10))
        guard response.status.code == 204 else { throw TestFailure("setting \(subject) gave \(response.status)") }
    }

    /// Makes the provider misbehave as Tests/PythonSupport/oidc_provider.py describes (`""` stops it).
    func setFault(_ fault: String) async throws {
        var request = HTTPClientRequest(url: issuer + "/_fault")
        request.method = .PUT
        request.body = .bytes(ByteBuffer(string: fault))
        let response = try await client.execute(request, timeout: .seconds(10))
        guard response.status.code == 204 else { throw TestFailure("setting fault \(fault) gave \(response.status)") }
    }

    /// What the provider's sign-in form does when `subject` signs in (or, with `deny`, refuses) at the authorization
    /// address Parley sent the browser to: returns the address it sends the browser back to.
    func authorize(_ location: String, as subject: String, deny: Bool = false) async throws -> String {
        var request = HTTPClientRequest(url: location)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: deny ? "action=deny" : "sub=" + subject))
        let response = try await client.execute(request, timeout: .seconds(10))
        guard (300..<400).contains(response.status.code), let back = response.headers.first(name: "location") else {
            let body = try await response.body.collect(upTo: 1 << 20)
            throw TestFailure("the provider answered \(response.status): \(String(buffer: body).prefix(300))")
        }
        return back
    }
}
