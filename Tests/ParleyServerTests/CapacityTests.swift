import Foundation
import Glibc
import Testing

@testable import ParleyServer

/// Parley stays within its open-file limit: connections beyond its share make room by closing idle ones or are
/// refused, replies beyond theirs get 503, and nothing is stored for a refused send.
@Suite("Capacity")
struct CapacityTests {
    @Test("the open-file limit is split into a reserve, connections and replies; over HTTP/2 replies get nine tenths")
    func budgetSplitsTheLimit() {
        let shell = FileDescriptorBudget(limit: 1024)
        #expect(shell.reserve == 64 + 51)
        #expect(shell.connections == 454 && shell.replies == 455)
        #expect(shell.reserve + shell.connections + shell.replies == 1024)
        let large = FileDescriptorBudget(limit: 20_000)
        #expect(large.connections == 9_468 && large.replies == 9_468)
        let multiplexed = FileDescriptorBudget(limit: 20_000, multiplexed: true)
        #expect(multiplexed.connections == 1_893 && multiplexed.replies == 17_043)
        #expect(multiplexed.reserve + multiplexed.connections + multiplexed.replies == 20_000)
        for budget in [FileDescriptorBudget(limit: 10), FileDescriptorBudget(limit: 10, multiplexed: true)] {
            #expect(budget.connections == 1 && budget.replies == 1)
        }
    }

    @Test("starting raises the soft open-file limit to the hard one")
    func softLimitIsRaised() throws {
        var before = rlimit()
        try #require(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &before) == 0)
        // One below the hard limit, so that the test fails when nothing raises it (CI's soft and hard limits are
        // equal).
        before.rlim_cur = before.rlim_max - 1
        try #require(setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &before) == 0)
        let budget = FileDescriptorBudget.raisingProcessLimit()
        var after = rlimit()
        try #require(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &after) == 0)
        #expect(after.rlim_cur == after.rlim_max)
        #expect(budget.limit == Int(min(after.rlim_cur, 1 << 24)))
    }

    @Test(
        "a send beyond the replies limit gets 503 server_busy with Retry-After and stores nothing; the running ones finish"
    )
    func replyBeyondTheLimitIsRefused() async throws {
        // Replies of 3 s: the third send must come while both still run, even on a machine loaded by the full suite.
        try await withTestServer(
            mockTokens: 150, mockDelayMilliseconds: 20,
            configure: {
                $0.generation.maxRunningReplies = 2
                $0.sendRateLimit = nil
            }
        ) { server in
            let api = try await GenerationTests.signedIn(server)
            var conversations: [Int64] = []
            for _ in 0..<3 { conversations.append(try await api.createConversation()) }
            #expect(try await api.send(conversations[0], "one").status == 202)
            #expect(try await api.send(conversations[1], "two").status == 202)
            let refused = try await api.send(conversations[2], "three")
            #expect(refused.status == 503)
            #expect(refused.headers.first(name: "retry-after") == "5")
            #expect((try refused.json()["error"] as? [String: Any])?["code"] as? String == "server_busy")
            #expect(try await api.messages(conversations[2]).isEmpty)
            // Once a reply has ended (it is released just after it is saved), there is room again.
            let deadline = ContinuousClock.now + .seconds(20)
            var retried = refused
            while retried.status == 503, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                retried = try await api.send(conversations[2], "three")
            }
            #expect(retried.status == 202)
            #expect(try await api.messages(conversations[0]).last?["status"] as? String == "complete")
        }
    }

    @Test(
        "a connection beyond the limit closes the one idle the longest to make room, or is closed unread when every one is busy"
    )
    func connectionsBeyondTheLimit() async throws {
        try await withTestServer(configure: { $0.maxConnections = 2 }) { server in
            let api = try await GenerationTests.signedIn(server)
            let conversation = try await api.createConversation()
            // The test's own HTTP client keeps connections open; idle the longest, they make room first (the server may
            // accept `second` after `first`'s request, so `first` is idle by then too).
            let first = try await RawConnection.open(port: server.port)
            let second = try await RawConnection.open(port: server.port)
            #expect(try await first.get("/healthz") == 200)
            #expect(try await second.get("/healthz") == 200)
            // Both idle: a third connection is served, and the one idle the longest, the first, is closed to make room.
            let third = try await RawConnection.open(port: server.port)
            #expect(try await third.get("/healthz") == 200)
            #expect(try await first.waitUntil { $0.isClosed })
            #expect(!second.received.isClosed)
            let kept = second
            // Both open connections busy with event streams: a new connection is closed before anything is read.
            let events = ["Authorization: Bearer \(try #require(api.token))", "Accept: text/event-stream"]
            #expect(try await kept.get("/c/\(conversation)/events", headers: events) == 200)
            #expect(try await third.get("/c/\(conversation)/events", headers: events) == 200)
            let refused = try await RawConnection.open(port: server.port)
            #expect(try await refused.waitUntil { $0.isClosed })
            #expect(refused.received.text.isEmpty)
            // A stream that ends frees its place.
            await kept.close()
            let deadline = ContinuousClock.now + .seconds(10)
            var status: Int?
            while status != 200, ContinuousClock.now < deadline {
                status = try await RawConnection.open(port: server.port).get("/healthz")
            }
            #expect(status == 200)
            await third.close()
        }
    }

    @Test(
        "a real parley serve limited to 256 open files refuses connections past its share instead of running out, and serves again once they close; a low soft limit is raised"
    )
    func realServerStaysWithinItsOpenFiles() async throws {
        try await ProcessHarness.with(mock: .init(port: 0, tokens: 20)) { harness in
            for (index, (openFiles, refusesSome)) in [((soft: 256, hard: 256), true), ((soft: 256, hard: 4096), false)]
                .enumerated()
            {
                let (process, server) = try await harness.start(openFiles: openFiles)
                var connections: [RawConnection] = []
                for _ in 0..<300 { connections.append(try await RawConnection.open(port: server.port)) }
                // 256 files leave room for 90 connections (`FileDescriptorBudget`); these never send a request, so each
                // newcomer takes the place of the oldest and the rest are closed unread: each close is seen a moment
                // later. With the soft limit raised, all 300 stay: the last ones, answered, show that every one was
                // accepted (they would wait unaccepted under a soft limit of 256).
                if refusesSome {
                    _ = try await poll { connections.count { $0.received.isClosed } >= 300 - 90 }
                } else {
                    for connection in connections.suffix(20) { #expect(try await connection.get("/healthz") == 200) }
                }
                let closed = connections.filter { $0.received.isClosed }
                #expect(refusesSome ? closed.count >= 300 - 90 : closed.isEmpty, "closed: \(closed.count)")
                #expect(closed.allSatisfy { $0.received.text.isEmpty })
                #expect(process.isRunning)
                for connection in connections { await connection.close() }
                // Served again once they have closed (the server sees each close a moment later): a whole reply
                // streams.
                let api = try await eventually {
                    if index == 0 {
                        var browser = server.browser()
                        _ = try await browser.signUp("limits@example.com")
                    }
                    return try await APIClient.signIn(server, email: "limits@example.com")
                }
                let stream = try await api.request(
                    .POST, "/api/conversations/\(try await api.createConversation())/messages",
                    json: ["content": "Hello"], headers: [("Accept", "text/event-stream")])
                var parser = SSEParserForTests()
                #expect(parser.events(stream.body).done?.json["status"] as? String == "complete")
                #expect(process.isRunning)
                kill(process.processIdentifier, SIGTERM)
                process.waitUntilExit()
            }
        }
    }

    /// What `work` returns once it stops throwing, trying for at most 10 s.
    private func eventually<T>(_ work: () async throws -> T) async throws -> T {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            do {
                return try await work()
            } catch  where ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }
}
