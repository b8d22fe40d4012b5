import Foundation
import MockUpstream
import Testing

/// The real `parley serve` killed with SIGKILL twenty times, each time with 100 replies of several users streaming,
/// and restarted on the same SQLite file.
@Suite(
    "Reliability: repeated hard kills",
    .enabled(
        if: ProcessInfo.processInfo.environment["PARLEY_RELIABILITY"] == "1",
        "heavy: run with PARLEY_RELIABILITY=1 (docs/RELIABILITY.md)"))
struct ReliabilityKillTests {
    static let rounds = 20
    static let users = 5
    static let conversationsPerUser = 20
    /// Replies of 200 tokens 40 ms apart (8 s): each is still streaming when its round's kill comes.
    static let mock = MockUpstreamConfiguration(port: 0, tokens: 200, delayMilliseconds: 40)
    /// Text received this long before the kill must be saved: the documented one-second flush, plus one second for a
    /// flush transaction of 100 replies on a busy machine.
    static let savedWindow: Duration = .seconds(2)
    /// How long the replies stream (from the sends) before the kill: the saved window and half a second more.
    static let streamingTime: Duration = .milliseconds(2500)

    /// One conversation under test: its owner, its id and what each round left in it.
    struct Tracked {
        var owner: Int
        var id: Int64
        var questions: [String] = []
        var savedReplies: [String] = []
    }

    /// What one reply lost: characters its client received but the file did not keep, and how long before the kill
    /// the client had received the last character that was kept.
    struct Loss {
        var characters: Int
        var age: Duration
    }

    /// What one round lost.
    struct RoundLoss: CustomStringConvertible {
        var round: Int
        var lost: [Loss]
        var streamed: Int
        var restart: Duration

        var description: String {
            let characters = lost.map(\.characters)
            let age = lost.map(\.age).max() ?? .zero
            return "round \(round + 1): \(characters.filter { $0 > 0 }.count) of \(lost.count) replies lost text, "
                + "max \(characters.max() ?? 0) chars (saved text at most \(age.formatted(.units(allowed: [.milliseconds]))) old), "
                + "total \(characters.reduce(0, +)) of \(streamed) streamed; restart \(restart.formatted(.units(allowed: [.milliseconds])))"
        }
    }

    @Test(
        "20 SIGKILLs with 100 replies streaming: every question and partial reply survives as interrupted, the file is intact, nothing runs, at most the flush window is lost"
    )
    func repeatedKills() async throws {
        let started = ContinuousClock.now
        try await ProcessHarness.with(
            mock: Self.mock, environment: ["PARLEY_SIGNUP": "open", "PARLEY_MODEL_TITLES": "off"]
        ) { harness in
            var (process, server) = try await harness.start()
            var clients: [APIClient] = []
            for user in 0..<Self.users { clients.append(try await server.signUp("user\(user)@example.com").api) }
            var tracked: [Tracked] = []
            for owner in 0..<Self.users {
                for _ in 0..<Self.conversationsPerUser {
                    tracked.append(
                        Tracked(owner: owner, id: try await clients[owner].createConversation(model: "mock-fast")))
                }
            }
            var losses: [RoundLoss] = []
            for round in 0..<Self.rounds {
                let streamed = try await Self.streamThenKill(
                    round: round, process: process, clients: clients, tracked: &tracked)
                let restartBegan = ContinuousClock.now
                (process, server) = try await harness.start()
                let restart = restartBegan.duration(to: .now)
                clients = clients.map { $0.on(server) }
                let lost = try await Self.verify(
                    round: round, server: server, clients: clients, tracked: &tracked, streamed: streamed)
                losses.append(
                    RoundLoss(
                        round: round, lost: lost, streamed: streamed.map(\.text.count).reduce(0, +), restart: restart))
                print("[kill rounds] \(losses[round])")
            }
            _ = try await CrashRecoveryTests.terminate(process, within: .seconds(15))
            let all = losses.flatMap(\.lost)
            let characters = all.map(\.characters)
            print(
                "[kill rounds] \(Self.rounds) rounds, \(all.count) replies killed mid-stream: \(characters.filter { $0 > 0 }.count) lost text, "
                    + "max \(characters.max() ?? 0) chars, mean \(characters.reduce(0, +) / max(1, all.count)) chars, "
                    + "oldest saved text \(all.map(\.age).max() ?? .zero) before the kill; took \(started.duration(to: .now))"
            )
        }
    }

    /// What a reply's client had received: its text at the kill, and how much of it it had at each sample before.
    struct Received {
        var text = ""
        /// (time before the kill, characters received by then), oldest first.
        var samples: [(before: Duration, count: Int)] = []

        /// Characters received at least `age` before the kill.
        func count(atLeast age: Duration) -> Int { samples.last { $0.before >= age }?.count ?? 0 }

        /// How long before the kill the client had received `count` characters (zero when it had not yet).
        func age(of count: Int) -> Duration { samples.first { $0.count >= count }?.before ?? .zero }
    }

    /// Sends one question on every tracked conversation with its reply's event stream, lets them stream while
    /// sampling what each client has received, and kills the server with SIGKILL; returns what the clients had.
    static func streamThenKill(
        round: Int, process: Process, clients: [APIClient],
        tracked: inout [Tracked]
    ) async throws -> [Received] {
        for index in tracked.indices { tracked[index].questions.append("round \(round) question \(index)") }
        let readers = try await withThrowingTaskGroup(of: (Int, EventReader).self) { group in
            for (index, conversation) in tracked.enumerated() {
                group.addTask {
                    (
                        index,
                        try await clients[conversation.owner].sendStreaming(
                            conversation.id, conversation.questions[round])
                    )
                }
            }
            var readers: [Int: EventReader] = [:]
            for try await (index, reader) in group { readers[index] = reader }
            return tracked.indices.map { readers[$0]! }
        }
        for reader in readers { #expect(reader.status == 200) }
        var received = [Received](repeating: Received(), count: readers.count)
        var times: [ContinuousClock.Instant] = []
        let sampling = ContinuousClock.now
        // Sample until every reply has streamed and the saved window has passed, for at most 30 s.
        while sampling.duration(to: .now) < streamingTime || received.contains(where: \.text.isEmpty) {
            guard sampling.duration(to: .now) < .seconds(30) else {
                throw TestFailure("replies did not start within 30 s")
            }
            times.append(.now)
            for (index, reader) in readers.enumerated() {
                received[index].text += reader.drain().text
                received[index].samples.append((.zero, received[index].text.count))
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        kill(process.processIdentifier, SIGKILL)
        let killed = ContinuousClock.now
        for (index, reader) in readers.enumerated() {
            received[index].text += reader.drain().text
            for sample in received[index].samples.indices {
                received[index].samples[sample].before = times[sample].duration(to: killed)
            }
            received[index].samples.append((.zero, received[index].text.count))
        }
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        return received
    }

    /// Checks the restarted server and its file after a round; returns what each reply lost.
    static func verify(
        round: Int, server: TestServer, clients: [APIClient], tracked: inout [Tracked],
        streamed: [Received]
    ) async throws -> [Loss] {
        #expect(try await DatabaseHealth.read(server.dataDirectory) == .healthy)
        #expect(try await server.gauge("parley_generations_running") == 0)
        let whole = MockReply.text(model: "mock-fast", tokens: mock.tokens)
        let pages = try await withThrowingTaskGroup(of: (Int, TestResponse).self) { group in
            for (index, conversation) in tracked.enumerated() {
                group.addTask {
                    (
                        index,
                        try await clients[conversation.owner].request(
                            .GET, "/api/conversations/\(conversation.id)/messages?limit=200")
                    )
                }
            }
            var pages: [Int: TestResponse] = [:]
            for try await (index, page) in group { pages[index] = page }
            return pages
        }
        var lost: [Loss] = []
        for index in tracked.indices {
            let messages = try pages[index]?.json()["data"] as? [[String: Any]] ?? []
            let questions = messages.filter { $0["role"] as? String == "user" }.compactMap { $0["content"] as? String }
            let replies = messages.filter { $0["role"] as? String == "assistant" }
            #expect(questions == tracked[index].questions, "conversation \(tracked[index].id) lost a question")
            #expect(replies.allSatisfy { $0["status"] as? String == "interrupted" })
            let saved = replies.compactMap { $0["content"] as? String }
            #expect(Array(saved.dropLast()) == tracked[index].savedReplies, "an earlier round's reply changed")
            let reply = saved.last ?? ""
            #expect(whole.hasPrefix(reply))
            #expect(
                reply.count >= streamed[index].count(atLeast: savedWindow),
                "reply \(index) lost text received more than \(savedWindow) before the kill")
            lost.append(
                Loss(
                    characters: max(0, streamed[index].text.count - reply.count),
                    age: streamed[index].age(of: reply.count)))
            tracked[index].savedReplies.append(reply)
        }
        return lost
    }
}
