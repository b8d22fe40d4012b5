import Foundation
import Testing

@testable import ParleyServer

/// Connections held open to lock others out: silent ones, half-sent requests, idle keep-alives, and one user's
/// endless event streams.
@Suite("Security: connection exhaustion")
struct ConnectionAbuseTests {
    @Test(
        "connections that never send a request (or half a request line) cannot fill the server: a newcomer takes the oldest one's place"
    )
    func silentConnectionsAreReclaimable() async throws {
        try await withTestServer(configure: { $0.maxConnections = 4 }) { server in
            var silent: [RawConnection] = []
            for index in 0..<4 {
                let connection = try await RawConnection.open(port: server.port)
                if index % 2 == 1 { #expect(await connection.send("GET /hea")) }
                silent.append(connection)
            }
            let newcomer = try await RawConnection.open(port: server.port)
            #expect(try await newcomer.get("/healthz") == 200)
            // The server may admit connections opened together in another order than they were opened, so which one
            // is closed is not known: polled until one is seen closed.
            _ = try await poll(every: .milliseconds(10)) { silent.contains { $0.received.isClosed } }
            #expect(silent.filter { $0.received.isClosed }.count == 1)
            #expect(silent.allSatisfy { $0.received.text.isEmpty })
            for connection in silent + [newcomer] { await connection.close() }
        }
    }

    @Test(
        "a connection must send its request's head within the idle timeout of opening or of its last response: silent, dripping a header a byte at a time, or idle after a response, it is closed"
    )
    func requestHeadDeadline() async throws {
        // 2 s: long enough that a loaded machine's pause between two of the busy connection's requests stays under it.
        try await withTestServer(configure: { $0.idleTimeout = .seconds(2) }) { server in
            let silent = try await RawConnection.open(port: server.port)
            let dripping = try await RawConnection.open(port: server.port)
            let kept = try await RawConnection.open(port: server.port)
            #expect(try await kept.get("/healthz") == 200)
            let started = ContinuousClock.now
            // A byte every 100 ms: the connection is never quiet, but its head never arrives.
            let drip = Task {
                for byte in "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + String(repeating: "a", count: 200)
                {
                    guard await dripping.send(String(byte)) else { return }
                    // Real time: the byte's pace is the behaviour; 100 ms is far inside the 2 s idle timeout.
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            for connection in [silent, dripping, kept] { #expect(try await connection.waitUntil { $0.isClosed }) }
            #expect(started.duration(to: .now) < .seconds(9))
            drip.cancel()
            // A connection that keeps asking stays open past the timeout.
            let busy = try await RawConnection.open(port: server.port)
            for _ in 0..<6 {
                #expect(try await busy.get("/healthz") == 200)
                // Real time: a request every 500 ms keeps it busy for 3 s, past the 2 s timeout, never quiet for 2 s.
                try await Task.sleep(for: .milliseconds(500))
            }
            #expect(!busy.received.isClosed)
            await busy.close()
        }
    }

    @Test(
        "one user may hold PARLEY_MAX_STREAMS_PER_USER event streams: the next gets 429 with Retry-After, another user is unaffected, and a closed stream frees its place"
    )
    func eventStreamsPerUser() async throws {
        try await withTestServer(configure: {
            $0.maxEventStreamsPerUser = 3
            $0.signup = .open
        }) { server in
            let api = try await GenerationTests.signedIn(server)
            let conversation = try await api.createConversation()
            let events = ["Authorization: Bearer \(try #require(api.token))", "Accept: text/event-stream"]
            var streams: [RawConnection] = []
            for _ in 0..<3 {
                let stream = try await RawConnection.open(port: server.port)
                #expect(try await stream.get("/c/\(conversation)/events", headers: events) == 200)
                streams.append(stream)
            }
            let refused = try await RawConnection.open(port: server.port)
            #expect(try await refused.get("/c/\(conversation)/events", headers: events) == 429)
            #expect(refused.received.text.lowercased().contains("retry-after: 5"))
            let other = try await GenerationTests.signedIn(server, email: "other@example.com")
            let theirs = try await RawConnection.open(port: server.port)
            let otherEvents = ["Authorization: Bearer \(try #require(other.token))", "Accept: text/event-stream"]
            #expect(
                try await theirs.get("/c/\(try await other.createConversation())/events", headers: otherEvents) == 200)
            await streams[0].close()
            // The server learns of the close when its next heartbeat fails to write (500 ms in tests).
            let deadline = ContinuousClock.now + .seconds(10)
            var status: Int?
            while status != 200, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                let probe = try await RawConnection.open(port: server.port)
                status = try await probe.get("/c/\(conversation)/events", headers: events)
                streams.append(probe)
            }
            #expect(status == 200)
            for stream in streams + [refused, theirs] { await stream.close() }
        }
    }
}
