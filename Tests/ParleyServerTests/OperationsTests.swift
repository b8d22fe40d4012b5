import Foundation
import GRDB
import Logging
import MockUpstream
import ParleyServer
import ParleyStore
import Synchronization
import Testing

/// Running Parley for real: metrics, request ids and logs, settings that stop start-up, and online backups.
@Suite("Operations")
struct OperationsTests {
    /// The value of the sample line `name{labels…}` whose labels include every one of `labels`, if any.
    static func sample(_ text: String, _ name: String, labels: [String]) -> Double? {
        text.split(separator: "\n")
            .first { line in line.hasPrefix(name + "{") && labels.allSatisfy { line.contains($0) } }
            .flatMap { $0.split(separator: " ").last }
            .flatMap { Double($0) }
    }

    /// How much the sample `name{labels…}` grew from the exposition `before` to `after`.
    static func added(_ name: String, _ labels: [String], before: String, after: String) -> Double {
        (sample(after, name, labels: labels) ?? 0) - (sample(before, name, labels: labels) ?? 0)
    }

    @Test("/metrics reports requests by route and status, first-token time, tokens and reply duration by model")
    func metricsAfterAReply() async throws {
        try await withTestServer(mockTokens: 12) { server in
            let api = try await GenerationTests.signedIn(server)
            // Other suites share this process's registry, so the test looks at what its own reply added.
            let before = try await api.request(.GET, "/metrics").body
            let id = try await api.createConversation(model: "mock-fast")
            let reader = try await api.events(id)
            #expect(try await api.send(id, "count me").status == 202)
            _ = try await reader.untilDone()
            #expect(try await api.request(.GET, "/api/conversations/999999/messages").status == 404)
            let response = try await api.request(.GET, "/metrics")
            #expect(response.status == 200)
            #expect(response.headers.first(name: "content-type")?.hasPrefix("text/plain; version=0.0.4") == true)
            let after = response.body
            func added(_ name: String, _ labels: [String]) -> Double {
                Self.added(name, labels, before: before, after: after)
            }
            #expect(after.contains("# TYPE parley_generations_running gauge"))
            #expect(
                added(
                    "hb_requests",
                    [#"http_route="/api/conversations/{id}/messages""#, #"http_response_status_code="202""#]) >= 1)
            #expect(
                added(
                    "hb_requests",
                    [
                        #"http_route="/api/conversations/{id}/messages""#, #"http_request_method="GET""#,
                        #"http_response_status_code="404""#,
                    ]) >= 1)
            #expect(added("parley_time_to_first_token_seconds_count", [#"model="mock-fast""#]) >= 1)
            #expect(added("parley_tokens_total", [#"model="mock-fast""#, #"kind="completion""#]) >= 12)
            #expect(added("parley_reply_duration_seconds_count", [#"model="mock-fast""#, #"status="complete""#]) >= 1)
        }
    }

    @Test(
        "/metrics times Parley's part of a first token without the provider's wait: a reply whose first token the mock sends 3 s after the request adds one sample, seconds under the reply's time, though two streams read it"
    )
    func addedFirstTokenTime() async throws {
        // A model of this test's own, so that the replies of the suites running beside it land in other series.
        let model = "added-time-probe"
        let config = try makeTempDirectory() + "/models.json"
        try Data(#"{"models": [{"id": "\#(model)", "provider": "openai", "upstream_id": "mock-fast"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: config))
        try await withTestServer(
            mockTokens: 3, mockFirstTokenMilliseconds: 3_000, configure: { $0.providerConfigPath = config }
        ) { server in
            let api = try await GenerationTests.signedIn(server)
            let id = try await api.createConversation(model: model)
            let second = try await api.events(id)
            let reader = try await api.events(id)
            // Other suites share this process's registry, so the test looks at what its own reply added.
            let before = try await api.request(.GET, "/metrics").body
            let sent = ContinuousClock.now
            #expect(try await api.send(id, "time me").status == 202)
            _ = try await reader.untilDone()
            _ = try await second.untilDone()
            let elapsed = sent.duration(to: .now)
            let after = try await api.request(.GET, "/metrics").body
            func added(_ name: String, _ labels: [String]) -> Double {
                Self.added(name, labels, before: before, after: after)
            }
            let series = #"model="\#(model)""#
            #expect(added("parley_added_first_token_seconds_count", [series]) == 1)
            // Counted with the provider's 3 s, the sample would be about the whole reply's time; without, 3 s less
            // (the margin allows a loaded machine to resume the handler late).
            let sample = Duration.milliseconds(Int64(added("parley_added_first_token_seconds_sum", [series]) * 1000))
            #expect(sample < elapsed - .milliseconds(1_500), "sample \(sample), reply \(elapsed)")
        }
    }

    @Test("with a metrics token, /metrics needs it: none or a wrong one is 401")
    func metricsToken() async throws {
        try await withTestServer(configure: { $0.metricsToken = "scrape-secret" }) { server in
            var browser = server.browser()
            #expect(try await browser.get("/metrics").status == 401)
            #expect(try await browser.get("/metrics", headers: [("Authorization", "Bearer wrong")]).status == 401)
            let allowed = try await browser.get("/metrics", headers: [("Authorization", "Bearer scrape-secret")])
            #expect(allowed.status == 200)
            #expect(allowed.body.contains("parley_event_streams_open"))
        }
    }

    /// A write lock held by another connection, and the signal to let it go.
    final class HeldLock: Sendable {
        let isHeld = Atomic<Bool>(false)
        let release = Atomic<Bool>(false)
    }

    @Test(
        "while another process holds SQLite's write lock, /metrics counts the store writes waiting behind the first; they all land once it lets go"
    )
    func waitingWritesGauge() async throws {
        try await withTestServer(mockTokens: 3) { server in
            let api = try await GenerationTests.signedIn(server)
            var created: [Int64] = []
            for _ in 0..<3 { created.append(try await api.createConversation()) }
            let conversations = created
            #expect(try await server.gauge("parley_store_writes_waiting") == 0)
            // Another process's connection takes the write lock and keeps it until `lock.release` is set.
            let lock = HeldLock()
            let other = try DatabaseQueue(path: server.dataDirectory + "/parley.sqlite")
            let holder = Task {
                try await other.writeWithoutTransaction { db in
                    try db.inTransaction(.immediate) {
                        lock.isHeld.store(true, ordering: .sequentiallyConsistent)
                        let deadline = Date().addingTimeInterval(9)
                        while !lock.release.load(ordering: .sequentiallyConsistent), Date() < deadline { usleep(1000) }
                        return .commit
                    }
                }
            }
            // Taken on GRDB's thread, with no event to await: polled, 10 s at most.
            let held = try await poll(every: .milliseconds(1)) { lock.isHeld.load(ordering: .sequentiallyConsistent) }
            try #require(held, "the other connection never took the write lock")
            // The first send's transaction waits for the lock inside SQLite; later ones wait in the store. They go one
            // at a time, the next after the gauge has been read for up to half a second: sent together, all three could
            // join one transaction, and none would wait. The lock is released as soon as a write is seen waiting: the
            // first send's transaction gives up on it after SQLite's busy timeout (10 s), and on a loaded machine a
            // send can take seconds to arrive.
            var sends: [Task<Int, any Error>] = []
            var waiting = 0
            let deadline = ContinuousClock.now + .seconds(8)
            for (index, id) in conversations.enumerated() {
                sends.append(Task { try await api.send(id, "wait for me").status })
                let next =
                    index == conversations.count - 1
                    ? deadline : min(ContinuousClock.now + .milliseconds(500), deadline)
                while waiting < 1, ContinuousClock.now < next {
                    waiting = try await server.gauge("parley_store_writes_waiting") ?? -1
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            lock.release.store(true, ordering: .sequentiallyConsistent)
            try await holder.value
            // At most the two sends behind the first: the write inside the waiting transaction is not counted.
            #expect((1...2).contains(waiting))
            var statuses: [Int] = []
            for send in sends { statuses.append(try await send.value) }
            #expect(statuses == [202, 202, 202])
            // The replies' own writes may queue for a moment as they end: the count comes back to 0.
            #expect(try await server.waitForGauge("parley_store_writes_waiting", toBe: 0) == 0)
            for id in conversations {
                #expect(try await api.messages(id).first?["content"] as? String == "wait for me")
            }
        }
    }

    @Test("every response names its request id, and an API error carries the same id")
    func requestIDs() async throws {
        try await withTestServer { server in
            let api = try await GenerationTests.signedIn(server)
            let missing = try await api.request(.GET, "/api/conversations/424242/messages")
            #expect(missing.status == 404)
            let id = try #require(missing.headers.first(name: "x-request-id"))
            #expect(!id.isEmpty)
            let error = try #require(try missing.json()["error"] as? [String: Any])
            #expect(error["request_id"] as? String == id)
            #expect(error["code"] as? String == "not_found")
            var browser = server.browser()
            let page = try await browser.get("/no/such/page")
            #expect(page.status == 404)
            let pageID = try #require(page.headers.first(name: "x-request-id"))
            #expect(page.body.contains(pageID))
            #expect(pageID != id)
        }
    }

    @Test("the providers' model lists are asked for again every refresh interval while the server runs")
    func modelListsAreRefreshed() async throws {
        try await withTestServer(configure: { $0.modelRefreshInterval = .milliseconds(100) }) { server in
            let first = try await server.mockStats().modelListRequests
            #expect(first >= 1)  // the start-up discovery
            let later = try await server.waitForMock(timeout: .seconds(10)) { $0.modelListRequests >= first + 3 }
            #expect(later.modelListRequests >= first + 3)
        }
    }

    @Test(
        "a provider that is down at start-up does not hold the start past the discovery wait; its models appear once it is up, without a restart"
    )
    func discoveryInTheBackground() async throws {
        let port = try UpstreamConnectProbe.closedPort()
        let directory = try makeTempDirectory()
        var settings = testSettings(dataDirectory: directory, mockPort: port)
        settings.modelDiscoveryWait = .milliseconds(200)
        settings.modelRetryDelay = .milliseconds(200)
        settings.modelRefreshInterval = nil
        settings.upstreamConnectTimeout = .seconds(120)
        let started = ContinuousClock.now
        let (ports, ready) = AsyncStream.makeStream(of: Int.self)
        let app = try await buildApplication(settings: settings) { ready.yield($0) }
        // Waiting for the provider would hold the start for the 120 s connect timeout. The bound is far from both: with
        // the whole suite running at once on two cores, a start that does not wait has taken up to 20 s.
        #expect(started.duration(to: .now) < .seconds(60))
        try await withRunningService(app, logger: Logger(label: "test")) {
            var iterator = ports.makeAsyncIterator()
            let serverPort = try #require(await iterator.next())
            try await withTestClient { client in
                let server = TestServer(port: serverPort, mockPort: port, dataDirectory: directory, client: client)
                let api = try await GenerationTests.signedIn(server)
                let ids = { () async throws -> [String] in
                    let list = try await api.request(.GET, "/api/models").json()["data"] as? [[String: Any]]
                    return (list ?? []).compactMap { $0["id"] as? String }
                }
                #expect(try await !ids().contains("mock-fast"))
                do {
                    try await MockUpstream(configuration: .init(port: port, tokens: 5)).serving { _ in
                        // Asked again every 200 ms (`modelRetryDelay`): polled, 20 s at most.
                        _ = try await poll(within: .seconds(20), every: .milliseconds(100)) {
                            try await ids().contains("mock-fast")
                        }
                        #expect(try await ids().contains("mock-fast"))
                    }
                } catch {
                    Issue.record("serving the mock: \(String(reflecting: error))")
                }
            }
        }
    }

    @Test("a templates or static folder that is not there stops the start with its setting's name and full path")
    func missingFolders() async throws {
        for name in ["PARLEY_TEMPLATES_DIR", "PARLEY_PUBLIC_DIR"] {
            let directory = try makeTempDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            var settings = testSettings(dataDirectory: directory, mockPort: 9)
            settings.environment = [:]  // the demo model only: nothing to discover
            if name == "PARLEY_TEMPLATES_DIR" {
                settings.templatesDirectory = directory + "/no-templates"
            } else {
                settings.publicDirectory = "no-public"
            }
            do {
                _ = try await buildApplication(settings: settings) { _ in }
                Issue.record("\(name): the start went on without the folder")
            } catch let error as SettingsError {
                #expect(error.name == name)
                let expected =
                    name == "PARLEY_TEMPLATES_DIR"
                    ? directory + "/no-templates"
                    : FileManager.default.currentDirectoryPath + "/no-public"
                #expect(error.description.contains("there is none at \(expected)"), "\(error)")
            }
        }
    }

    @Test("a setting that is set but unusable is refused with its name; good ones are read")
    func settingsValidation() throws {
        for (name, value) in [
            ("PARLEY_PORT", "eighty"), ("PARLEY_PORT", "70000"), ("PARLEY_SIGNUP", "sometimes"),
            ("PARLEY_COOKIE_SECURE", "maybe"), ("PARLEY_BCRYPT_COST", "99"), ("PARLEY_LOG_LEVEL", "loud"),
            ("PARLEY_SHUTDOWN_GRACE", "-1"), ("PARLEY_UPSTREAM_IDLE_TIMEOUT", "0"),
            ("PARLEY_DEMO_TOKEN_DELAY_MS", "soon"), ("PARLEY_MODEL_REFRESH", "-5"),
            ("PARLEY_MAX_UPLOAD_MB", "0"), ("PARLEY_MAX_UPLOAD_MB", "2048"),
        ] {
            #expect(throws: SettingsError.self) { try ServerSettings(environment: [name: value]) }
            do {
                _ = try ServerSettings(environment: [name: value])
            } catch {
                #expect(error.name == name && error.value == value)
                #expect("\(error)".hasPrefix("\(name)=\(value) cannot be used"))
            }
        }
        let settings = try ServerSettings(environment: [
            "PARLEY_PORT": "9090", "PARLEY_SIGNUP": "closed", "PARLEY_COOKIE_SECURE": "auto",
            "PARLEY_BCRYPT_COST": "10",
            "PARLEY_LOG_LEVEL": "debug", "PARLEY_SHUTDOWN_GRACE": "2.5", "PARLEY_UPSTREAM_IDLE_TIMEOUT": "30",
            "PARLEY_METRICS_TOKEN": "t", "PARLEY_HOST": "", "PARLEY_JWT_SECRET": "", "PARLEY_MODEL_REFRESH": "0",
            "PARLEY_MAX_UPLOAD_MB": "5",
        ])
        #expect(settings.modelRefreshInterval == nil && settings.maxUploadBytes == 5 << 20)
        #expect(try ServerSettings(environment: ["PARLEY_MODEL_REFRESH": "90"]).modelRefreshInterval == .seconds(90))
        #expect(settings.port == 9090 && settings.signup == .closed && settings.cookieSecure == nil)
        #expect(settings.bcryptCost == 10 && settings.logLevel == .debug && settings.metricsToken == "t")
        #expect(
            settings.generation.shutdownGrace == .milliseconds(2500) && settings.upstreamIdleTimeout == .seconds(30))
        #expect(settings.host == "127.0.0.1" && settings.jwtSecret == nil)
    }

    @Test("parley serve with a bad setting exits non-zero and names it")
    func badSettingStopsStartUp() async throws {
        let (status, output) = try await CommandLineTests.run(
            ["serve", "--port", "0"], input: "",
            environment: ["PARLEY_SIGNUP": "sometimes"])
        #expect(status != 0)
        #expect(output.contains("PARLEY_SIGNUP=sometimes"))
    }

    @Test("a backup taken while replies stream is a consistent, complete copy; an existing file is never overwritten")
    func onlineBackup() async throws {
        try await withTestServer(mockTokens: 30) { server in
            let api = try await GenerationTests.signedIn(server)
            let finished = try await api.createConversation()
            let reader = try await api.events(finished)
            #expect(try await api.send(finished, "kept in the backup").status == 202)
            _ = try await reader.untilDone()
            let running = try await api.createConversation(model: "mock-slow")
            #expect(try await api.send(running, "still streaming").status == 202)
            let target = try makeTempDirectory() + "/copy.sqlite"
            let (status, output) = try await CommandLineTests.run(
                ["backup", "--to", target, "--data-dir", server.dataDirectory], input: "")
            #expect(status == 0, "\(output)")
            let copy = try DatabaseQueue(path: target)
            let (check, users, question) = try await copy.read { db in
                (
                    try String.fetchOne(db, sql: "PRAGMA integrity_check"),
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM users"),
                    try String.fetchOne(
                        db, sql: "SELECT content FROM messages WHERE conversation_id = ? AND role = 'user'",
                        arguments: [finished])
                )
            }
            #expect(check == "ok" && users == 1 && question == "kept in the backup")
            let sizeBefore = try FileManager.default.attributesOfItem(atPath: target)[.size] as? Int
            let (again, message) = try await CommandLineTests.run(
                ["backup", "--to", target, "--data-dir", server.dataDirectory], input: "")
            #expect(again != 0)
            #expect(message.contains("already exists"))
            #expect(try FileManager.default.attributesOfItem(atPath: target)[.size] as? Int == sizeBefore)
        }
    }

    @Test("the server logs one line per request with its route and status, and never message text or passwords")
    func requestLogsLeakNothing() async throws {
        let logPath = try makeTempDirectory() + "/server.log"
        try Data().write(to: URL(fileURLWithPath: logPath))
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        try await CrashRecoveryTests.withServerProcess(environment: ["PARLEY_LOG_LEVEL": "info"], log: log) {
            process, server in
            let api = try await GenerationTests.signedIn(server)
            let id = try await api.createConversation()
            let reader = try await api.events(id)
            #expect(try await api.send(id, "the-secret-question-7781").status == 202)
            _ = try await reader.untilDone()
            _ = try await api.request(.GET, "/search?q=the-secret-search-5512")
            _ = try await CrashRecoveryTests.terminate(process, within: .seconds(10))
        }
        try log.close()
        let text = try String(contentsOfFile: logPath, encoding: .utf8)
        #expect(text.contains("route=/api/conversations/{id}/messages"))
        #expect(text.contains("status=202"))
        #expect(text.contains("hb.request.id="))
        for secret in ["the-secret-question-7781", "the-secret-search-5512", "correct horse battery", "Bearer "] {
            #expect(!text.contains(secret), "the log contains \(secret)")
        }
    }
}
