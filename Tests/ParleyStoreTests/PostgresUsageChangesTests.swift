import Foundation
import Logging
import ParleyCore
import Synchronization
import TestDatabases
import Testing

@testable import ParleyPostgres

/// Usage in PostgreSQL is added as rows of `usage_changes`, so that one user's replies finishing at once never wait for
/// each other's commit, and folded into `usage_daily` without changing any sum.
@Suite struct PostgresUsageChangesTests {
    @Test("a reply finishes while another transaction adding the same user's usage is open; folding keeps sums")
    func finishesDoNotQueueOnTheRollup() async throws {
        try await TestPostgres.shared.withDatabase { database in
            let accounts = PostgresAccountStore(database: database)
            let chats = PostgresChatStore(database: database)
            let usage = PostgresUsageStore(database: database)
            let user = try await accounts.createUser(email: "ada@example.com", passwordHash: "-", isAdmin: false)
            let conversation = try await chats.createConversation(
                userID: user.id, title: "Chat", model: "m", systemPrompt: "")
            let exchange = try await chats.beginExchange(
                conversationID: conversation.id, userContent: "a question", images: [], requestID: nil, model: "m")
            let pricing = ReplyPricing(modelID: "m", providerID: "openai", listRates: TokenRates(input: 10, output: 20))
            let outcome = ReplyOutcome(
                content: "an answer", status: .complete, usage: Usage(promptTokens: 3, completionTokens: 4),
                pricing: pricing)
            let today = UsageDay(Date())
            var held = UsageTotals()
            held.requests = 1
            held.costMicros = 1_000

            let finished = Flag()
            let (finishing, finishedWhileHeld) = try await database.withTransaction { connection in
                try await PostgresUsageLedger(connection: connection, logger: Logger(label: "parley-test"))
                    .add(held, userID: user.id, model: "m", day: today, source: .chat)
                // The reply's finish adds to the same user's usage of the same day and model while this transaction
                // holds its own addition uncommitted: it must end without waiting for this one (given 10 s, so that a
                // wait fails the test instead of hanging it: the commit below lets a waiting finish go on).
                let finishing = Task {
                    defer { finished.raise() }
                    return try await chats.finishReply(id: exchange.assistantMessage.id, outcome: outcome)
                }
                let deadline = ContinuousClock.now + .seconds(10)
                while !finished.isRaised, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(10))
                }
                return (finishing, finished.isRaised)
            }
            let reply = try await finishing.value
            #expect(finishedWhileHeld, "finishing the reply waited for another transaction's usage")
            let total = reply.costMicros + held.costMicros
            let period = UsagePeriod.last(1, endingOn: today)
            #expect(try await usage.dashboard(period: period, sort: .cost, userLimit: 10).totals.costMicros == total)
            #expect(try await database.integer("SELECT COUNT(*) FROM usage_changes", []) == 2)

            try await PostgresUsageLedger.fold(client: database.client, logger: Logger(label: "parley-test"))
            #expect(try await database.integer("SELECT COUNT(*) FROM usage_changes", []) == 0)
            #expect(try await database.integer("SELECT SUM(cost_micros)::bigint FROM usage_daily", []) == total)
            #expect(try await database.integer("SELECT SUM(requests)::bigint FROM usage_daily", []) == 2)
            let records = try await usage.records(period: period)
            #expect(records.count == 1 && records.first?.totals.costMicros == total)
            #expect(try await chats.budgetStatus(userID: user.id).spentMicros == total)
        }
    }
}

/// A flag one task raises and another reads.
private final class Flag: Sendable {
    private let raised = Mutex(false)

    /// Whether it was raised.
    var isRaised: Bool { raised.withLock { $0 } }

    /// Raises it.
    func raise() { raised.withLock { $0 = true } }
}
