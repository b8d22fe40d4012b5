import Foundation
import MockUpstream
import Synchronization
import Testing

/// Many people writing to the one SQLite file at once, with another process writing to it too.
@Suite("Reliability: SQLite under contention")
struct ReliabilityContentionTests {
    static let users = 20
    static let conversationsPerUser = 3
    static let commandLineAccounts = 8
    static let tokens = 40

    /// Every answer the test got (event streams included), to be checked once everyone is done.
    final class Answers: Sendable {
        private let answers = Mutex<[(String, TestResponse)]>([])

        /// Keeps `response` to the request named `what`, and returns it.
        @discardableResult
        func keep(_ what: String, _ response: TestResponse) -> TestResponse {
            answers.withLock { $0.append((what, response)) }
            return response
        }

        /// The answers that show a server failure or a locked database.
        var failures: [String] {
            answers.withLock { answers in
                answers.filter {
                    $0.1.status >= 500 || $0.1.body.localizedCaseInsensitiveContains("locked")
                        || $0.1.body.localizedCaseInsensitiveContains("busy")
                }
                .map { "\($0.0): \($0.1.status) \($0.1.body.prefix(200))" }
            }
        }

        /// How many answers were kept.
        var count: Int { answers.withLock { $0.count } }
    }

    @Test(
        "20 people at once creating conversations and sending, then renaming, pinning, searching and exporting while their replies stream and flush, as the command line creates accounts: no locked database, no 5xx, every reply complete and stored once, the file intact"
    )
    func manyWritersAtOnce() async throws {
        try await withTestServer(
            mockTokens: Self.tokens, mockDelayMilliseconds: 10,
            configure: { settings in
                settings.signup = .open
                settings.sendRateLimit = nil
            }
        ) { server in
            let answers = Answers()
            let expected = MockReply.text(model: "mock-fast", tokens: Self.tokens)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for user in 0..<Self.users {
                    group.addTask {
                        try await Self.busyUser(user, server: server, answers: answers, expectedReply: expected)
                    }
                }
                group.addTask {
                    for index in 0..<Self.commandLineAccounts {
                        let (status, output) = try await CommandLineTests.run(
                            [
                                "user", "create", "--email", "cli\(index)@example.com", "--data-dir",
                                server.dataDirectory,
                            ],
                            input: "correct horse battery\n")
                        #expect(status == 0, "parley user create: \(output)")
                        #expect(!output.localizedCaseInsensitiveContains("locked"))
                    }
                }
                try await group.waitForAll()
            }
            #expect(answers.failures.isEmpty, "\(answers.failures)")
            #expect(answers.count >= Self.users * Self.conversationsPerUser * 5)
            for index in 0..<Self.commandLineAccounts {
                #expect(try await APIClient.signIn(server, email: "cli\(index)@example.com").token != nil)
            }
            try await server.waitForMock { $0.open == 0 }
            #expect(try await server.gauge("parley_generations_running") == 0)
            #expect(try await DatabaseHealth.read(server.dataDirectory) == .healthy)
        }
    }

    /// One person's burst: conversations with a streamed reply each and, while the reply streams (and is flushed), a
    /// rename, a pin, a search and an export; then a check that each conversation holds exactly its question and its
    /// complete reply.
    static func busyUser(_ user: Int, server: TestServer, answers: Answers, expectedReply: String) async throws {
        let account = try await server.signUp("user\(user)@example.com")
        var browser = account.browser
        let api = account.api
        for index in 0..<conversationsPerUser {
            let id = try await api.createConversation()
            let question = "question \(index) from user \(user)"
            let reply = try await api.sendStreaming(id, question)
            answers.keep(
                "rename", try await browser.post("/c/\(id)/rename", form: ["title": "Renamed \(user)-\(index)"]))
            answers.keep("pin", try await browser.post("/c/\(id)/pin"))
            answers.keep("search", try await api.request(.GET, "/search?q=question"))
            answers.keep("export", try await api.request(.GET, "/c/\(id)/export.json"))
            let events = try await reply.untilDone(timeout: .seconds(60))
            answers.keep(
                "send",
                TestResponse(
                    status: reply.status, headers: reply.headers, body: events.map(\.data).joined(separator: "\n")))
            #expect(
                events.done?.json["status"] as? String == "complete",
                "user \(user): \(events.last?.data ?? "no events")")
            let messages = try await api.messages(id)
            #expect(
                messages.map { $0["content"] as? String } == [question, expectedReply],
                "user \(user) conversation \(id)")
            #expect(messages.last?["status"] as? String == "complete")
        }
    }
}
