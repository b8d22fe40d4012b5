import Foundation
import GRDB
import ParleyCore
import Testing

@testable import ParleyStore

/// Money, days and prices as values: integer micro-dollars, exact parsing and formatting, UTC days.
@Suite struct MoneyAndDayTests {
    @Test func costIsRoundedHalfUpInIntegerMicroDollars() {
        let rates = TokenRates(input: 150_000, cachedInput: 75_000, output: 600_000)
        #expect(rates.cost(of: Usage(promptTokens: 3)) == 0)  // 0.45 micro-dollars
        #expect(rates.cost(of: Usage(promptTokens: 4)) == 1)  // 0.6
        #expect(rates.cost(of: Usage(promptTokens: 1_000_000, completionTokens: 1_000_000)) == 750_000)
        // Cached tokens are part of the prompt, charged at the cached rate.
        #expect(rates.cost(of: Usage(promptTokens: 1_000_000, cachedPromptTokens: 400_000)) == 90_000 + 30_000)
        // Huge prices and counts do not overflow: 128-bit products, clamped.
        let extreme = TokenRates(input: .max, cachedInput: .max, output: .max)
        #expect(extreme.cost(of: Usage(promptTokens: .max, completionTokens: .max)) == .max)
        #expect(
            TokenRates(ModelPrice(input: 2.5, cachedInput: 1.25, output: 10))
                == TokenRates(input: 2_500_000, cachedInput: 1_250_000, output: 10_000_000))
    }

    @Test func dollarAmountsAreParsedAndWrittenExactly() {
        #expect(MicroDollars.parse("2.5") == 2_500_000)
        #expect(MicroDollars.parse(" $0.000001 ") == 1)
        #expect(MicroDollars.parse("12") == 12_000_000)
        #expect(MicroDollars.parse(".5") == 500_000)
        for bad in ["", ".", "-1", "1.0000001", "1e3", "1,5", "abc", "1.2.3", "99999999999"] {
            #expect(MicroDollars.parse(bad) == nil, "\(bad)")
        }
        #expect(MicroDollars.decimal(1_250_000) == "1.25")
        #expect(MicroDollars.decimal(15) == "0.000015")
        #expect(MicroDollars.decimal(3_000_000) == "3.00")
        #expect(MicroDollars.display(1_234_567_890) == "$1,234.57")
        #expect(MicroDollars.display(15) == "$0.000015")
        #expect(MicroDollars.display(0) == "$0.00")
        #expect(MicroDollars.display(4_995) == "$0.004995")
        #expect(MicroDollars.display(5_000) == "$0.005")
        #expect(MicroDollars.from(dollars: 0.1) == 100_000)
        #expect(MicroDollars.from(dollars: .infinity) == 0)
    }

    @Test func daysAreStrictUTCDates() throws {
        #expect(UsageDay("2024-02-29")?.description == "2024-02-29")
        for bad in [
            "2023-02-29", "2024-13-01", "2024-1-01", "24-01-01", "2024-01-01T00:00", "", "abcd-ef-gh", "1969-12-31",
            "2024/01/01",
        ] {
            #expect(UsageDay(bad) == nil, "\(bad)")
        }
        let day = try #require(UsageDay("2024-12-31"))
        #expect(day.firstOfNextMonth.description == "2025-01-01")
        #expect(day.firstOfMonth.description == "2024-12-01")
        #expect(day.adding(days: 1).description == "2025-01-01")
        #expect(try #require(UsageDay("2024-01-01")).days(until: day) == 365)
        #expect(UsagePeriod(from: day, to: day.adding(days: 365)) != nil)
        #expect(UsagePeriod(from: day, to: day.adding(days: 366)) == nil)
        #expect(UsagePeriod(from: day, to: day.adding(days: -1)) == nil)
        #expect(UsagePeriod.last(30, endingOn: day).from.description == "2024-12-02")
        // Every day of four centuries round-trips through its date, the leap days of 2000 and 2400 included.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var current = try #require(UsageDay("1970-01-01"))
        for offset in stride(from: 0, to: 146_097, by: 1) {
            let date = Date(timeIntervalSince1970: Double(offset) * 86_400 + 43_200)
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            guard current.year == parts.year, current.month == parts.month, current.day == parts.day,
                UsageDay(date) == current,
                UsageDay(current.description) == current
            else {
                Issue.record("\(current) is not \(parts)")
                break
            }
            current = current.adding(days: 1)
        }
        #expect(UsageDay("2000-02-29") != nil && UsageDay("2100-02-29") == nil && UsageDay("2400-02-29") != nil)
    }

    @Test func budgetThresholdsAreExact() throws {
        let month = try #require(UsageDay("2025-03-01"))
        #expect(!BudgetStatus(month: month, spentMicros: 999_999, budgetMicros: 1_000_000).isExhausted)
        #expect(BudgetStatus(month: month, spentMicros: 1_000_000, budgetMicros: 1_000_000).isExhausted)
        #expect(!BudgetStatus(month: month, spentMicros: 799_999, budgetMicros: 1_000_000).isNearLimit)
        #expect(BudgetStatus(month: month, spentMicros: 800_000, budgetMicros: 1_000_000).isNearLimit)
        #expect(!BudgetStatus(month: month, spentMicros: .max, budgetMicros: nil).isExhausted)
        #expect(BudgetStatus(month: month, spentMicros: 0, budgetMicros: 1).resetsOn.description == "2025-04-01")
    }
}

/// Charging replies at versioned prices, the daily rollup, budgets and the reports, on every database.
@Suite struct UsageStoreTests {
    static let rates = TokenRates(input: 3_000_000, cachedInput: 300_000, output: 15_000_000)

    /// Starts a reply in a new conversation of the user and returns its id.
    static func reply(_ store: StoreKind.Stores, _ userID: UserID) async throws -> MessageID {
        let conversation = try await store.conversation(userID)
        return try await store.chats.beginExchange(
            conversationID: conversation.id, userContent: "q", requestID: nil, model: "m"
        )
        .assistantMessage.id
    }

    /// Ends a reply as `status`, charged as `model`.
    @discardableResult
    static func finish(
        _ store: StoreKind.Stores, _ id: MessageID, _ usage: Usage, model: String = "m",
        status: MessageStatus = .complete,
        rates: TokenRates = rates
    ) async throws -> Usage {
        try await store.chats.finishReply(
            id: id,
            outcome: ReplyOutcome(
                content: "a", status: status, usage: usage,
                pricing: ReplyPricing(modelID: model, providerID: "p", listRates: rates)))
    }

    @Test(arguments: StoreKind.allCases) func aReplyIsChargedAtTheVersionInForceAndKeepsIt(kind: StoreKind) async throws
    {
        try await kind.withStores { store in
            let usageStore = store.usage
            let alice = try await store.user("alice@example.com")
            let first = try await Self.reply(store, alice.id)
            let charged = try await Self.finish(
                store, first, Usage(promptTokens: 1_000, cachedPromptTokens: 200, completionTokens: 500))
            // 800 × $3 + 200 × $0.30 + 500 × $15 per million.
            #expect(charged.costMicros == 2_400 + 60 + 7_500)
            let listed = try #require(try await usageStore.priceVersions().last)
            #expect(listed.modelID == "m" && listed.rates == Self.rates)

            let newer = try await usageStore.setPrice(
                modelID: "m", rates: TokenRates(input: 1_000_000, output: 1_000_000))
            let second = try await Self.reply(store, alice.id)
            let cheaper = try await Self.finish(store, second, Usage(promptTokens: 1_000, completionTokens: 500))
            #expect(cheaper.costMicros == 1_500)

            let charges = [(listed.id, 9_960), (newer.id, 1_500)]
            for (index, (price, cost)) in charges.enumerated() {
                #expect(
                    try await store.count(
                        """
                        SELECT COUNT(*) FROM messages WHERE role = 'assistant' AND id = ? AND price_version_id = ?
                        AND cost_micros = ? AND provider = 'p'
                        """, [[first, second][index], price, Int64(cost)]) == 1)
            }
            let stored = try #require(try await store.chats.message(id: first, userID: alice.id))
            #expect(stored.usage == charged)
            // A list price given later (a changed configuration) does not replace the history.
            let third = try await Self.reply(store, alice.id)
            #expect(try await Self.finish(store, third, Usage(completionTokens: 1_000_000)).costMicros == 1_000_000)
        }
    }

    @Test(arguments: StoreKind.allCases) func theRollupSumsEveryChargedReplyExactly(kind: StoreKind) async throws {
        try await kind.withStores { store in
            let usageStore = store.usage
            var users: [User] = []
            for index in 0..<4 { users.append(try await store.user("u\(index)@example.com")) }
            var generator = SystemRandomNumberGenerator()
            var expected: Int64 = 0
            for index in 0..<60 {
                let user = users[index % users.count]
                let id = try await Self.reply(store, user.id)
                let usage = Usage(
                    promptTokens: Int.random(in: 0...50_000, using: &generator),
                    completionTokens: Int.random(in: 0...5_000, using: &generator), estimated: index % 7 == 0)
                let status: MessageStatus = [.complete, .stopped, .error][index % 3]
                expected += try await Self.finish(
                    store, id, usage, model: ["a", "b", "c"][index % 3], status: status,
                    rates: TokenRates(input: Int64(index) * 1_000, cachedInput: 0, output: 7_777_777)
                ).costMicros
            }
            // An unpriced outcome (no pricing) stays out of the rollup.
            try await store.chats.finishReply(
                id: try await Self.reply(store, users[0].id),
                outcome: ReplyOutcome(content: "x", status: .complete, usage: Usage(costMicros: 5)))
            let messages = try await store.count(
                "SELECT CAST(SUM(cost_micros) AS BIGINT) FROM messages WHERE price_version_id IS NOT NULL")
            // PostgreSQL's rollup is `usage_daily` and the changes not yet folded into it.
            let rollup = try await store.count(
                "SELECT CAST(SUM(cost_micros) AS BIGINT) FROM \(kind == .postgres ? "usage_rows" : "usage_daily")")
            #expect(Int64(messages) == expected)
            #expect(Int64(rollup) == expected)
            let today = UsageDay.today
            let dashboard = try await usageStore.dashboard(period: .last(7, endingOn: today), sort: .cost, userLimit: 2)
            #expect(dashboard.totals.costMicros == expected)
            #expect(dashboard.totals.requests == 60)
            #expect(dashboard.activeUsers == 4)
            #expect(dashboard.users.count == 2)
            #expect(dashboard.users.map(\.totals.costMicros) == dashboard.users.map(\.totals.costMicros).sorted(by: >))
            #expect(Set(dashboard.models.map(\.model)) == ["a", "b", "c"])
            let byName = try await usageStore.dashboard(period: .last(7, endingOn: today), sort: .name, userLimit: 10)
            #expect(
                byName.users.compactMap(\.email) == [
                    "u0@example.com", "u1@example.com", "u2@example.com", "u3@example.com",
                ])
            #expect(
                try await usageStore.records(period: .last(1, endingOn: today)).reduce(0) { $0 + $1.totals.costMicros }
                    == expected)
            let spend = try await usageStore.spend(since: today.firstOfMonth)
            #expect(spend.values.reduce(0, +) == expected)
            let report = try await usageStore.userReport(
                userID: users[1].id, period: .last(1, endingOn: today), conversationLimit: 3)
            #expect(report.totals.costMicros == spend[users[1].id])
            #expect(report.conversations.count == 3)
            #expect(report.conversations.map(\.costMicros) == report.conversations.map(\.costMicros).sorted(by: >))
            // Deleting a user keeps their spend in the rollup, under no email.
            _ = try await store.accounts.deleteUser(id: users[2].id)
            let after = try await usageStore.dashboard(period: .last(7, endingOn: today), sort: .cost, userLimit: 10)
            #expect(after.totals.costMicros == expected)
            #expect(after.users.contains { $0.userID == users[2].id && $0.email == nil })
        }
    }

    @Test(arguments: StoreKind.allCases) func theBudgetIsCheckedInTheTransactionThatStartsAReply(kind: StoreKind)
        async throws
    {
        try await kind.withStores { store in
            let accounts = store.admin
            let bob = try await store.user("bob@example.com")
            let month = UsageDay.today.firstOfMonth
            #expect(
                try await store.chats.budgetStatus(userID: bob.id)
                    == BudgetStatus(month: month, spentMicros: 0, budgetMicros: nil))
            let first = try await Self.reply(store, bob.id)
            let cost = try await Self.finish(store, first, Usage(completionTokens: 1_000)).costMicros  // 15,000
            try await accounts.setMonthlyBudget(cost + 1, userID: bob.id)
            // Just below the budget: a reply may start; while it streams, no second one may.
            let second = try await Self.reply(store, bob.id)
            await expectStoreError(.budgetReplyRunning) { _ = try await Self.reply(store, bob.id) }
            try await Self.finish(store, second, Usage(completionTokens: 1_000))
            let spent = BudgetStatus(month: month, spentMicros: 2 * cost, budgetMicros: cost + 1)
            await expectStoreError(.budgetExceeded(spent)) { _ = try await Self.reply(store, bob.id) }
            #expect(try await store.chats.budgetStatus(userID: bob.id) == spent)
            // Exactly at the budget is spent too; the default applies to users without their own.
            try await accounts.setMonthlyBudget(2 * cost, userID: bob.id)
            await expectStoreError(
                .budgetExceeded(BudgetStatus(month: month, spentMicros: 2 * cost, budgetMicros: 2 * cost))
            ) {
                _ = try await Self.reply(store, bob.id)
            }
            try await accounts.setMonthlyBudget(nil, userID: bob.id)
            try await accounts.setDefaultMonthlyBudget(2 * cost + 1)
            #expect(try await accounts.defaultMonthlyBudget() == 2 * cost + 1)
            _ = try await Self.reply(store, bob.id)
            try await accounts.setDefaultMonthlyBudget(nil)
            #expect(try await accounts.defaultMonthlyBudget() == nil)
            // Without a budget, replies run side by side.
            _ = try await Self.reply(store, bob.id)
        }
    }

    @Test func theFixtureWritesARollupConsistentWithItsMessages() async throws {
        try await StoreFixture.run { store in
            let summary = try await UsageFixture(users: 25, days: 40, messages: 3_000, seed: 7).write(
                to: store.database)
            #expect(summary.users == 25 && summary.conversations == 300 && summary.messages == 3_000)
            let mismatches = try await store.database.pool.read { db in
                try Int.fetchOne(
                    db,
                    sql: """
                        WITH replies AS (
                            SELECT substr(m.updated_at, 1, 10) AS day, c.user_id, p.model_id AS model, 'chat' AS source,
                                   COUNT(*) AS requests,
                                   SUM(m.prompt_tokens) AS input_tokens, SUM(m.cached_prompt_tokens) AS cached_input_tokens,
                                   SUM(m.completion_tokens) AS output_tokens, SUM(m.cost_micros) AS cost_micros,
                                   SUM(CASE WHEN m.usage_estimated THEN m.prompt_tokens + m.completion_tokens ELSE 0 END) AS estimated_tokens,
                                   SUM(CASE WHEN m.usage_estimated THEN m.cost_micros ELSE 0 END) AS estimated_cost_micros,
                                   0 AS title_tokens, 0 AS title_cost_micros, SUM(m.reasoning_tokens) AS reasoning_tokens,
                                   SUM(m.document_tokens) AS document_tokens
                            FROM messages m JOIN conversations c ON c.id = m.conversation_id JOIN model_prices p ON p.id = m.price_version_id
                            GROUP BY 1, 2, 3)
                        SELECT COUNT(*) FROM (SELECT * FROM replies EXCEPT SELECT * FROM usage_daily
                                              UNION ALL SELECT * FROM usage_daily EXCEPT SELECT * FROM replies)
                        """)
            }
            #expect(mismatches == 0)
            #expect(try await store.count("SELECT COUNT(*) FROM usage_daily WHERE estimated_tokens > 0") > 0)
            #expect(try await store.count("SELECT COUNT(*) FROM messages") == 3_000)
            #expect(try await store.count("SELECT COUNT(*) FROM usage_daily") == summary.rollupRows)
            let total = try await store.database.pool.read { db in
                try Int64.fetchOne(db, sql: "SELECT SUM(cost_micros) FROM usage_daily")
            }
            #expect(total == summary.costMicros)
            #expect(try await store.count("SELECT COUNT(DISTINCT price_version_id) FROM messages") == 7)
        }
    }
}
