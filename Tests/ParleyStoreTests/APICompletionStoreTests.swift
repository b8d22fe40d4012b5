import Foundation
import ParleyCore
import Testing

/// The OpenAI-compatible endpoint's completions: priced, charged to the rollup, and started within a monthly budget,
/// the same on every database.
@Suite struct APICompletionStoreTests {
    /// A completed outcome of `model` with 1,000 tokens in and out, at list rates of $1 and $2 a million.
    static func outcome(_ model: String = "m") -> ReplyOutcome {
        ReplyOutcome(
            content: "", status: .complete, usage: Usage(promptTokens: 1_000, completionTokens: 1_000),
            pricing: ReplyPricing(
                modelID: model, providerID: "p", listRates: TokenRates(input: 1_000_000, output: 2_000_000)))
    }

    @Test(
        "a completion is priced at its model's list rates and counts toward its user's budget, which refuses the next once spent",
        arguments: StoreKind.allCases)
    func pricedAndBudgeted(kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let ada = try await stores.accounts.createUser(email: "ada@example.com", passwordHash: "h", isAdmin: false)
            let first = try await stores.apiCompletions.beginAPICompletion(userID: ada.id, keyID: nil, model: "m")
            let charged = try await stores.apiCompletions.finishAPICompletion(id: first, outcome: Self.outcome())
            let expected = TokenRates(input: 1_000_000, output: 2_000_000).cost(of: Self.outcome().usage)
            #expect(charged.costMicros == expected && expected > 0)

            try await stores.admin.setMonthlyBudget(expected, userID: ada.id)
            await #expect(throws: StoreError.self) {
                _ = try await stores.apiCompletions.beginAPICompletion(userID: ada.id, keyID: nil, model: "m")
            }
            try await stores.admin.setMonthlyBudget(expected * 10, userID: ada.id)
            let second = try await stores.apiCompletions.beginAPICompletion(userID: ada.id, keyID: nil, model: "m")
            _ = try await stores.apiCompletions.finishAPICompletion(id: second, outcome: Self.outcome())
            let spent = try await stores.groupSpend(of: ada.id)
            #expect(spent == expected * 2)
        }
    }

    @Test(
        "with a budget, of completions started at once one alone runs: the others are refused as one is running",
        arguments: StoreKind.allCases)
    func oneAtATimeWithABudget(kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let ada = try await stores.accounts.createUser(email: "ada@example.com", passwordHash: "h", isAdmin: false)
            try await stores.admin.setMonthlyBudget(1_000_000_000, userID: ada.id)
            let results = await withTaskGroup(of: Result<APICompletionID, StoreError>.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        do throws(StoreError) {
                            return .success(
                                try await stores.apiCompletions.beginAPICompletion(
                                    userID: ada.id, keyID: nil, model: "m"))
                        } catch {
                            return .failure(error)
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            let started = results.compactMap { try? $0.get() }
            #expect(started.count == 1)
            #expect(results.filter { $0 == .failure(.budgetReplyRunning) }.count == 7)
            _ = try await stores.apiCompletions.finishAPICompletion(id: started[0], outcome: Self.outcome())
            _ = try await stores.apiCompletions.beginAPICompletion(userID: ada.id, keyID: nil, model: "m")
        }
    }
}

extension StoreKind.Stores {
    /// What `userID` has spent since the start of this month, read through a group of theirs alone.
    func groupSpend(of userID: UserID) async throws -> Int64 {
        let group = try await groups.createGroup(name: "spend-\(userID)")
        try await groups.addMember(userID: userID, groupID: group.id)
        return try await groups.spend(since: UsageDay.today.firstOfMonth)[group.id] ?? 0
    }
}
