import Foundation
import MockUpstream
import ParleyCore
import ParleyServer
import Testing

/// Parley against a provider serving HTTPS (HTTP/2) with a certificate from a private authority, which
/// `PARLEY_UPSTREAM_CA_FILE` names.
@Suite("HTTPS upstream")
struct HTTPSUpstreamTests {
    @Test("a reply streams from an HTTPS provider whose authority the setting names")
    func replyStreamsOverHTTPS() async throws {
        try await withTestServer(mockTokens: 12, mockTLS: try selfSignedCertificate()) { server in
            let (events, stored) = try await FaultTests.reply(server, model: "mock-fast")
            #expect(events.done?.json["status"] as? String == "complete")
            #expect(events.text == MockReply.text(model: "mock-fast", tokens: 12))
            #expect(stored["content"] as? String == events.text)
            #expect(try await server.mockStats().completed == 1)
        }
    }

    @Test("Stop closes the reply's connection to an HTTPS provider at once, and the provider's other replies go on")
    func stopClosesTheUpstreamConnection() async throws {
        // Replies of 30 s: the stop comes while both still stream, however loaded the machine.
        try await withTestServer(mockTokens: 300, mockTLS: try selfSignedCertificate()) { server in
            let api = try await GenerationTests.signedIn(server)
            let victim = try await api.createConversation(model: "mock-slow")
            let other = try await api.createConversation(model: "mock-slow")
            let stopped = try await api.sendStreaming(victim, "go")
            let going = try await api.sendStreaming(other, "go")
            #expect(try await stopped.collect { $0.name == "token" }.text.isEmpty == false)
            try await server.waitForMock { $0.open == 2 }
            let stopAt = ContinuousClock.now
            #expect(try await api.request(.POST, "/api/conversations/\(victim)/stop").status == 204)
            let afterStop = try await server.waitForMock(timeout: .seconds(3)) { $0.aborted == 1 }
            #expect(afterStop.aborted == 1, "the provider still streamed \(ContinuousClock.now - stopAt) after Stop")
            #expect(afterStop.open == 1)
            #expect(try await stopped.untilDone().done?.json["status"] as? String == "stopped")
            let more = try await going.collect { $0.name == "token" }
            #expect(!more.text.isEmpty && !more.contains { $0.name == "done" })
        }
    }

    @Test("without the setting, a provider whose certificate nobody vouches for is unreachable, and nothing is sent")
    func untrustedCertificateIsRefused() async throws {
        let folder = try makeTempDirectory()
        // Model discovery fails as the reply will, so the model is configured.
        try await withTestServer(
            mockTokens: 12, mockTLS: try MockTLSFiles.selfSigned(in: folder),
            configure: { settings in
                settings.upstreamCertificateAuthorities = nil
                // Each attempt is tried again until the connect timeout; the reply makes three.
                settings.upstreamConnectTimeout = .milliseconds(500)
                let baseURL = try #require(settings.environment["OPENAI_BASE_URL"])
                settings.providerConfigPath = folder + "/config.json"
                try
                    #"{"providers": [{"id": "mock", "base_url": "\#(baseURL)"}], "models": [{"id": "mock-fast", "provider": "mock"}]}"#
                    .write(toFile: folder + "/config.json", atomically: true, encoding: .utf8)
            }
        ) { server in
            let (events, stored) = try await FaultTests.reply(server, model: "mock-fast")
            let error = try #require(events.first { $0.name == "error" }?.json)
            #expect(error["code"] as? String == "upstream_unreachable")
            #expect(stored["status"] as? String == "error")
            #expect(try await server.mockStats().requests == 0)
        }
    }

    @Test(
        "a CA file that is missing, not PEM, a private key or holds no certificate stops the start, named",
        arguments: [nil, "not a certificate\n", "key", ""])
    func unusableFileStopsTheStart(content: String?) async throws {
        let directory = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/authorities.pem"
        if content == "key" {
            try FileManager.default.copyItem(atPath: try selfSignedCertificate().privateKey, toPath: path)
        } else if let content {
            try content.write(toFile: path, atomically: true, encoding: .utf8)
        }
        var settings = testSettings(dataDirectory: directory, mockPort: 1)
        settings.upstreamCertificateAuthorities = path
        let error = await #expect(throws: SettingsError.self) { _ = try await buildApplication(settings: settings) }
        #expect(error?.name == "PARLEY_UPSTREAM_CA_FILE")
        #expect(error?.value == path)
    }

    @Test("PARLEY_UPSTREAM_CA_FILE is read into the settings")
    func settingIsRead() throws {
        #expect(
            try ServerSettings(environment: ["PARLEY_UPSTREAM_CA_FILE": "/etc/parley/ca.pem"])
                .upstreamCertificateAuthorities
                == "/etc/parley/ca.pem")
        #expect(try ServerSettings(environment: [:]).upstreamCertificateAuthorities == nil)
    }
}
