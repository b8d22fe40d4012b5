import AsyncHTTPClient
import Foundation
import GRDB
import MockUpstream
import ParleyStore
import Testing

/// The real `parley serve` process killed with SIGKILL mid-stream, then restarted on the same SQLite file.
@Suite("Crash recovery")
struct CrashRecoveryTests {
    /// The built `parley` executable: the debug build, or the one `PARLEY_EXECUTABLE` names (the reliability suites
    /// against a release build).
    static let executable =
        ProcessInfo.processInfo.environment["PARLEY_EXECUTABLE"] ?? TestServer.repositoryRoot + "/.build/debug/parley"

    /// Starts `parley serve` on a free port; returns the process and its port.
    static func startServer(
        dataDirectory: String, mockPort: Int, environment: [String: String] = [:],
        log: FileHandle? = nil, openFiles: (soft: Int, hard: Int)? = nil
    ) async throws -> (Process, Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["serve", "--port", "0", "--data-dir", dataDirectory]
        if let openFiles {
            // util-linux's prlimit sets the limit and then becomes the server (same process).
            process.arguments =
                ["--nofile=\(openFiles.soft):\(openFiles.hard)", executable] + (process.arguments ?? [])
            process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        }
        process.currentDirectoryURL = URL(fileURLWithPath: TestServer.repositoryRoot)
        // The mock models the tests use are configured, not only discovered: on a loaded machine the start's one-second
        // wait for the mock's model list can pass before the list comes.
        let models = dataDirectory + "/mock-models.json"
        try Data(
            #"{"models": [{"id": "mock-slow", "provider": "openai"}, {"id": "mock-fast", "provider": "openai"}]}"#.utf8
        ).write(to: URL(fileURLWithPath: models))
        process.environment = ProcessInfo.processInfo.environment.merging(
            [
                "OPENAI_BASE_URL": "http://127.0.0.1:\(mockPort)/v1", "OPENAI_API_KEY": "k", "PARLEY_BCRYPT_COST": "4",
                "PARLEY_LOG_LEVEL": "warning", "PARLEY_CONFIG": models,
            ].merging(environment) { $1 }
        ) { $1 }
        let output = Pipe()
        process.standardOutput = output
        if let log { process.standardError = log }
        try process.run()
        let text = try await firstLine(of: output.fileHandleForReading)
        guard let portText = text.split(separator: ":").last?.split(separator: " ").first, let port = Int(portText)
        else {
            throw TestFailure("could not read the port from: \(text)")
        }
        return (process, port)
    }

    /// The first line a process writes, read on a dispatch thread so that the blocking read never holds one of
    /// the few cooperative threads the in-process mock upstream needs to answer.
    static func firstLine(of handle: FileHandle) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                var line = Data()
                while !line.contains(UInt8(ascii: "\n")) {
                    let chunk = handle.availableData
                    guard !chunk.isEmpty else {
                        return continuation.resume(throwing: TestFailure("parley serve exited before it served"))
                    }
                    line += chunk
                }
                continuation.resume(returning: String(decoding: line, as: UTF8.self))
            }
        }
    }

    /// Runs `body` with a real `parley serve` process (and an in-process mock upstream) on a fresh data folder;
    /// the process is killed afterwards if it still runs.
    static func withServerProcess(
        mock: MockUpstreamConfiguration = .init(port: 0, tokens: 60), environment: [String: String] = [:],
        log: FileHandle? = nil, _ body: (Process, TestServer) async throws -> Void
    ) async throws {
        try await ProcessHarness.with(mock: mock, environment: environment) { harness in
            let (process, server) = try await harness.start(log: log)
            try await body(process, server)
        }
    }

    @Test("after SIGKILL mid-stream every message is there, partial replies are interrupted, the file is intact")
    func killMidStream() async throws {
        // Replies of 600 tokens at 10 a second last a minute: the kill comes long before any ends, however loaded the
        // machine.
        try await Self.withServerProcess(mock: .init(port: 0, tokens: 600)) { process, server in
            let api = try await GenerationTests.signedIn(server)
            var readers: [(Int64, EventReader)] = []
            for _ in 0..<5 {
                let id = try await api.createConversation(model: "mock-slow")
                readers.append((id, try await api.events(id)))
            }
            // The sends go back to back, and the kill comes 1.5 s after every reply has streamed: past the
            // once-a-second save.
            for (index, (id, _)) in readers.enumerated() {
                #expect(try await api.send(id, "question \(index)").status == 202)
            }
            var received: [Int64: String] = [:]
            for (id, reader) in readers {
                received[id] = try await reader.collect { $0.name == "token" }.text
            }
            // Real time: what a kill loses is bounded by the server's own once-a-second save, which this lets run.
            try await Task.sleep(for: .milliseconds(1500))
            for (id, reader) in readers {
                received[id, default: ""] += reader.drain().text
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)

            let (restarted, newPort) = try await Self.startServer(
                dataDirectory: server.dataDirectory, mockPort: server.mockPort)
            defer { restarted.terminate() }
            let after = try await APIClient.signIn(
                TestServer(
                    port: newPort, mockPort: server.mockPort, dataDirectory: server.dataDirectory, client: server.client
                ),
                email: "user@example.com")
            let expected = MockReply.text(model: "mock-slow", tokens: 600)
            for (index, (id, _)) in readers.enumerated() {
                let messages = try await after.messages(id)
                #expect(messages.count == 2)
                #expect(messages.first?["content"] as? String == "question \(index)")
                let reply = try #require(messages.last)
                #expect(reply["status"] as? String == "interrupted")
                let partial = try #require(reply["content"] as? String)
                #expect(!partial.isEmpty)
                #expect(expected.hasPrefix(partial))
                // At most about a second is lost: mock-slow sends 10 tokens a second.
                let lostWords = (received[id] ?? "").split(separator: " ").count - partial.split(separator: " ").count
                #expect(lostWords <= 15, "lost \(lostWords) words")
            }
            let database = try ParleyDatabase(directory: server.dataDirectory)
            #expect(try await database.integrityCheck() == "ok")
            let streaming = try await database.pool.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM messages WHERE status = 'streaming'")
            }
            #expect(streaming == 0)
        }
    }

    /// Sends SIGTERM and waits up to `bound` for the process to exit; returns how long it took.
    static func terminate(_ process: Process, within bound: Duration) async throws -> Duration {
        let start = ContinuousClock.now
        process.terminate()
        while process.isRunning, start.duration(to: .now) < bound { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!process.isRunning, "parley serve did not exit within \(bound) of SIGTERM")
        #expect(process.terminationStatus == 0)
        return start.duration(to: .now)
    }

    /// The stored status and content of the only reply.
    static func storedReply(_ server: TestServer) async throws -> (status: String?, content: String?) {
        let database = try ParleyDatabase(directory: server.dataDirectory)
        #expect(try await database.integrityCheck() == "ok")
        let reply = try database.pool.read { db in
            try Row.fetchOne(db, sql: "SELECT status, content FROM messages WHERE role = 'assistant'")
        }
        return (reply?["status"], reply?["content"])
    }

    @Test(
        "SIGTERM past the grace period: the open stream gets done as interrupted, everything streamed is saved, exit 0; over HTTP/1.1 and over HTTPS (HTTP/2)",
        arguments: [false, true])
    func terminateMidStream(overTLS: Bool) async throws {
        var environment = ["PARLEY_SHUTDOWN_GRACE": "0.5"]
        if overTLS {
            let certificate = try selfSignedCertificate()
            environment["PARLEY_TLS_CERTIFICATE"] = certificate.certificateChain
            environment["PARLEY_TLS_KEY"] = certificate.privateKey
        }
        try await Self.withServerProcess(environment: environment) { process, server in
            let api = try await GenerationTests.signedIn(server)
            let id = try await api.createConversation(model: "mock-slow")
            let reader = try await api.events(id)
            // Another conversation's stream, with no reply running, is open too: shutdown must end it.
            let idle = try await api.events(try await api.createConversation(model: "mock-slow"))
            #expect(try await api.send(id, "long question").status == 202)
            let head = try await reader.untilTokens(2)
            let took = try await Self.terminate(process, within: .seconds(10))
            #expect(took >= .milliseconds(500), "the reply did not get its grace period")
            let events = try await reader.untilDone(timeout: .seconds(5))
            let done = try #require(events.done?.json)
            #expect(done["status"] as? String == "interrupted")
            #expect(idle.status == 200)
            let reply = try await Self.storedReply(server)
            #expect(reply.status == "interrupted")
            let streamed = head.text + events.text
            #expect(!streamed.isEmpty && reply.content == streamed)
        }
    }

    @Test("SIGTERM within the grace period: the reply finishes, its stream gets done as complete, new sends get 503")
    func terminateWithinGrace() async throws {
        try await Self.withServerProcess(environment: ["PARLEY_SHUTDOWN_GRACE": "30"]) { process, server in
            let api = try await GenerationTests.signedIn(server)
            let id = try await api.createConversation(model: "mock-slow")
            let other = try await api.createConversation(model: "mock-slow")
            let reader = try await api.events(id)
            // A stream where no reply runs: the server ends it as its shutdown begins, once sends are refused.
            let idle = try await api.events(other)
            #expect(try await api.send(id, "question").status == 202)
            _ = try await reader.untilTokens(2)
            process.terminate()
            // The signal has reached the server once the idle stream ends; the 30 s grace keeps the reply running.
            _ = try await idle.untilEnd(timeout: .seconds(10))
            #expect(try await api.send(other, "too late").status == 503)
            let events = try await reader.untilDone(timeout: .seconds(15))
            #expect(events.done?.json["status"] as? String == "complete")
            _ = try await Self.terminate(process, within: .seconds(10))
            let reply = try await Self.storedReply(server)
            #expect(reply.status == "complete")
            #expect(reply.content == MockReply.text(model: "mock-slow", tokens: 60))
        }
    }
}
