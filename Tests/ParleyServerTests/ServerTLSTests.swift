import AsyncHTTPClient
import Foundation
import MockUpstream
import NIOCore
import NIOHTTP1
import ParleyCore
import ParleyServer
import Testing

/// Parley serving HTTPS itself (`PARLEY_TLS_CERTIFICATE`, `PARLEY_TLS_KEY`): HTTP/2 for clients that offer it, so that
/// a browser's event streams share one connection, and HTTP/1.1 for the others.
@Suite("Serving HTTPS")
struct ServerTLSTests {
    @Test(
        "a client that offers HTTP/2 gets it; ten replies stream at once on its one connection, and stopping one leaves the others streaming"
    )
    func repliesShareAnHTTP2Connection() async throws {
        // 8 s replies: the stop must come while the victim still streams, however loaded the machine.
        try await withTestServer(mockTokens: 80, serverTLS: try selfSignedCertificate()) { server in
            let health = try await server.client.execute(
                HTTPClientRequest(url: server.baseURL + "/healthz"), timeout: .seconds(10))
            #expect(health.status == .ok)
            #expect(health.version == .http2)
            let api = try await GenerationTests.signedIn(server)
            var conversations: [Int64] = []
            for _ in 0..<10 { conversations.append(try await api.createConversation(model: "mock-slow")) }
            var readers: [Int64: EventReader] = [:]
            for id in conversations { readers[id] = try await api.sendStreaming(id, "go") }
            #expect(readers.values.allSatisfy { $0.status == 200 })
            try await server.waitForMock { $0.open == 10 }
            let victim = conversations[3]
            #expect(try await readers[victim]!.collect { $0.name == "token" }.text.isEmpty == false)
            #expect(try await api.request(.POST, "/api/conversations/\(victim)/stop").status == 204)
            let stopped = try await readers[victim]!.untilDone()
            #expect(stopped.done?.json["status"] as? String == "stopped")
            for id in conversations where id != victim {
                let events = try await readers[id]!.untilDone(timeout: .seconds(20))
                #expect(events.done?.json["status"] as? String == "complete")
                #expect(events.text == MockReply.text(model: "mock-slow", tokens: 80))
            }
            #expect(try await api.messages(victim)[1]["status"] as? String == "stopped")
            #expect(try await server.mockStats().aborted == 1)
        }
    }

    @Test(
        "a stream the client resets mid-reply leaves the reply to finish and be saved, and its connection's other streams unharmed"
    )
    func resetStreamLeavesTheReplyRunning() async throws {
        try await withTestServer(mockTokens: 30, serverTLS: try selfSignedCertificate()) { server in
            let api = try await GenerationTests.signedIn(server)
            let left = try await api.createConversation(model: "mock-slow")
            let kept = try await api.createConversation(model: "mock-slow")
            let leaving = Task {
                var request = HTTPClientRequest(url: server.baseURL + "/api/conversations/\(left)/messages")
                request.method = .POST
                request.headers.add(name: "Authorization", value: "Bearer \(api.token ?? "")")
                request.headers.add(name: "Accept", value: "text/event-stream")
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(string: #"{"content":"go"}"#))
                let response = try await server.client.execute(request, timeout: .seconds(60))
                for try await buffer in response.body where String(buffer: buffer).contains("event:token") { break }
            }
            let staying = try await api.sendStreaming(kept, "go")
            // Leaving the body after the first token cancels the request: over HTTP/2 that resets its stream only.
            try await leaving.value
            let events = try await staying.untilDone(timeout: .seconds(20))
            #expect(events.done?.json["status"] as? String == "complete")
            let saved = try await api.lastMessage(of: left, within: .seconds(20)) {
                $0?["status"] as? String == "complete"
            }
            #expect(saved?["status"] as? String == "complete")
            #expect(saved?["content"] as? String == MockReply.text(model: "mock-slow", tokens: 30))
            #expect(try await server.mockStats().aborted == 0)
        }
    }

    @Test("a client that speaks only HTTP/1.1 is served over TLS too, and its session cookie is Secure on loopback")
    func http1OverTLS() async throws {
        let certificate = try selfSignedCertificate()
        try await withTestServer(serverTLS: certificate) { server in
            let health = try await withTestClient(trusting: [certificate.certificateChain], http1Only: true) { client in
                try await client.execute(HTTPClientRequest(url: server.baseURL + "/healthz"), timeout: .seconds(10))
            }
            #expect(health.status == .ok)
            #expect(health.version == .http1_1)
            var browser = server.browser()
            let signedUp = try await browser.signUp("secure@example.com")
            let cookies = signedUp.headers["set-cookie"]
            #expect(!cookies.isEmpty)
            #expect(cookies.allSatisfy { $0.contains("; Secure") })
        }
    }

    @Test("plain HTTP to the HTTPS port gets no answer and harms nothing: HTTPS is served after it")
    func plainHTTPIsNotAnswered() async throws {
        try await withTestServer(serverTLS: try selfSignedCertificate()) { server in
            let plain = try await RawConnection.open(port: server.port)
            #expect(try await plain.get("/healthz") == nil)
            #expect(try await plain.waitUntil { $0.isClosed })
            #expect(!plain.received.text.contains("HTTP/1.1 200"))
            let health = try await server.client.execute(
                HTTPClientRequest(url: server.baseURL + "/healthz"), timeout: .seconds(10))
            #expect(health.status == .ok)
        }
    }

    @Test(
        "a connection that never finishes its TLS handshake is closed at the deadline, freeing its place; a finished one stays"
    )
    func unfinishedHandshakeIsClosed() async throws {
        try await withTestServer(
            serverTLS: try selfSignedCertificate(),
            configure: {
                $0.tlsHandshakeTimeout = .milliseconds(300)
                $0.maxConnections = 1
            }
        ) { server in
            // Says nothing at all: without the deadline it would hold the only place, and the shutdown, for ever.
            let silent = try await RawConnection.open(port: server.port)
            #expect(try await silent.waitUntil { $0.isClosed })
            #expect(silent.received.text.isEmpty)
            let api = try await GenerationTests.signedIn(server)
            // Real time (the deadline is the server's own timer): 600 ms, twice it, so one left armed here would fire.
            try await Task.sleep(for: .milliseconds(600))
            // The client's connection finished its handshake long ago and is still the one it uses.
            #expect(try await api.request(.GET, "/api/conversations").status == 200)
        }
    }

    @Test("with room for one connection, its HTTP/2 streams are not limited, and a second connection is refused")
    func anHTTP2ConnectionCountsOnce() async throws {
        let certificate = try selfSignedCertificate()
        try await withTestServer(mockTokens: 20, serverTLS: certificate, configure: { $0.maxConnections = 1 }) {
            server in
            let api = try await GenerationTests.signedIn(server)
            var readers: [EventReader] = []
            for _ in 0..<3 {
                readers.append(try await api.sendStreaming(try await api.createConversation(model: "mock-slow"), "go"))
            }
            let answered = try await withTestClient(trusting: [certificate.certificateChain]) { other in
                try? await other.execute(HTTPClientRequest(url: server.baseURL + "/healthz"), timeout: .seconds(5))
            }
            #expect(answered == nil)
            for reader in readers {
                #expect(try await reader.untilDone(timeout: .seconds(20)).done?.json["status"] as? String == "complete")
            }
        }
    }

    @Test(
        "an HTTP/2 connection with no stream left is closed after the idle timeout, freeing its place; one streaming a reply stays"
    )
    func idleHTTP2ConnectionIsClosed() async throws {
        let certificate = try selfSignedCertificate()
        // A timeout of 3 s, so that a loaded machine's pause between two requests of the setup does not close the
        // connection under them (a stream opened as the server closes it is refused).
        try await withTestServer(
            mockTokens: 60, serverTLS: certificate,
            configure: {
                $0.http2IdleTimeout = .seconds(3)
                $0.maxConnections = 1
            }
        ) { server in
            let api = try await GenerationTests.signedIn(server)
            // A reply of about 6 s, twice the timeout: its open stream keeps the connection from counting as idle.
            let reader = try await api.sendStreaming(try await api.createConversation(model: "mock-slow"), "go")
            let reply = try await reader.untilDone(timeout: .seconds(30))
            #expect(reply.done?.json["status"] as? String == "complete")
            #expect(reply.text == MockReply.text(model: "mock-slow", tokens: 60))
            // Idle from then on, the connection is closed, and its place goes to another client (without the timeout
            // it is refused for ever, as in the test above).
            let deadline = ContinuousClock.now + .seconds(20)
            var answered: HTTPResponseStatus?
            while answered == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(500))
                answered = try? await withTestClient(trusting: [certificate.certificateChain]) { other in
                    try await other.execute(HTTPClientRequest(url: server.baseURL + "/healthz"), timeout: .seconds(5))
                        .status
                }
            }
            #expect(answered == .ok)
            // The first client opens a new connection when it next asks.
            #expect(try await api.request(.GET, "/api/conversations").status == 200)
        }
    }

    @Test(
        "a certificate without its key, a key without its certificate, files that are not PEM, or another certificate's key stop the start, named",
        arguments: ["no key", "no certificate", "bad certificate", "bad key", "other key"])
    func unusableFilesStopTheStart(case problem: String) async throws {
        let directory = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (mine, other) = (try selfSignedCertificate(), try selfSignedCertificate())
        try "not a certificate\n".write(toFile: directory + "/garbage.pem", atomically: true, encoding: .utf8)
        var settings = testSettings(dataDirectory: directory, mockPort: 1)
        let (certificate, key, named): (String?, String?, String) =
            switch problem {
            case "no key": (mine.certificateChain, nil, "PARLEY_TLS_KEY")
            case "no certificate": (nil, mine.privateKey, "PARLEY_TLS_CERTIFICATE")
            case "bad certificate": (directory + "/garbage.pem", mine.privateKey, "PARLEY_TLS_CERTIFICATE")
            case "bad key": (mine.certificateChain, directory + "/garbage.pem", "PARLEY_TLS_KEY")
            default: (mine.certificateChain, other.privateKey, "PARLEY_TLS_KEY")
            }
        settings.tlsCertificate = certificate
        settings.tlsKey = key
        let error = await #expect(throws: SettingsError.self) { _ = try await buildApplication(settings: settings) }
        #expect(error?.name == named)
    }

    @Test("PARLEY_TLS_CERTIFICATE and PARLEY_TLS_KEY are read into the settings")
    func settingsAreRead() throws {
        let settings = try ServerSettings(environment: [
            "PARLEY_TLS_CERTIFICATE": "/etc/parley/cert.pem", "PARLEY_TLS_KEY": "/etc/parley/key.pem",
        ])
        #expect(settings.tlsCertificate == "/etc/parley/cert.pem" && settings.tlsKey == "/etc/parley/key.pem")
        #expect(settings.servesTLS && settings.usesSecureCookies)
        #expect(try !ServerSettings(environment: [:]).servesTLS)
    }
}
