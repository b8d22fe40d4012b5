import Foundation
import Hummingbird
import ParleyCore

/// `GET /api/usage`: the signed-in user's own usage this month (UTC), against the budget that limits them (their own or
/// their group's, whichever is stricter), by day and model, by model, and their most expensive conversations.
struct UsageAPIController {
    /// The most expensive conversations listed.
    static let conversationLimit = 10
    let chat: ChatService
    let usage: any UsageStore

    /// Adds the route.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/api/usage") { _, context in
            let user = try context.requireUser()
            let budget = try await chat.budgetStatus(userID: user.id)
            // A calendar month is always a period.
            let month = UsagePeriod(from: budget.month, to: budget.resetsOn.adding(days: -1))!
            let report = try await usage.userReport(
                userID: user.id, period: month, conversationLimit: Self.conversationLimit)
            return try Response.json(UsageJSON(budget: budget, report: report))
        }
    }

    /// The answer: the month, the budget, the totals and their breakdowns.
    struct UsageJSON: Encodable {
        var month: String
        var resetsOn: String
        var budget: BudgetJSON
        var totals: TotalsJSON
        var byDay: [DayJSON]
        var byModel: [ModelJSON]
        var conversations: [ConversationJSON]

        init(budget status: BudgetStatus, report: UserUsageReport) {
            month = status.month.description
            resetsOn = status.resetsOn.description
            budget = BudgetJSON(status)
            totals = TotalsJSON(report.totals)
            byDay = report.daily.map {
                DayJSON(day: $0.day.description, model: $0.model, totals: TotalsJSON($0.totals))
            }
            var models: [String: UsageTotals] = [:]
            for row in report.daily { models[row.model, default: UsageTotals()] += row.totals }
            byModel = models.sorted { ($0.value.costMicros, $1.key) > ($1.value.costMicros, $0.key) }.map {
                ModelJSON(model: $0.key, totals: TotalsJSON($0.value))
            }
            conversations = report.conversations.map {
                ConversationJSON(
                    conversationId: $0.conversationID, title: $0.title, replies: $0.replies,
                    costUsd: MicroDollars.dollars($0.costMicros))
            }
        }
    }

    /// The month's spend against the budget; `budget_usd` null when there is none, `group` absent for the user's own.
    struct BudgetJSON: Encodable {
        var spentUsd: Double
        var budgetUsd: Double?
        var percentUsed: Int64?
        var nearLimit: Bool
        var exhausted: Bool
        var group: String?

        init(_ status: BudgetStatus) {
            spentUsd = MicroDollars.dollars(status.spentMicros)
            budgetUsd = status.budgetMicros.map(MicroDollars.dollars)
            percentUsed = status.percentUsed
            nearLimit = status.isNearLimit
            exhausted = status.isExhausted
            group = status.group
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(spentUsd, forKey: .spentUsd)
            try container.encode(budgetUsd, forKey: .budgetUsd)  // null, not absent: no limit
            try container.encode(percentUsed, forKey: .percentUsed)
            try container.encode(nearLimit, forKey: .nearLimit)
            try container.encode(exhausted, forKey: .exhausted)
            try container.encodeIfPresent(group, forKey: .group)
        }

        enum CodingKeys: String, CodingKey {
            case spentUsd, budgetUsd, percentUsed, nearLimit, exhausted, group
        }
    }

    /// Requests, tokens and money of some usage; the `estimated_`, `title_` and `api_` figures are parts of the others.
    struct TotalsJSON: Encodable {
        var requests: Int64
        var inputTokens: Int64
        var cachedInputTokens: Int64
        var outputTokens: Int64
        var reasoningTokens: Int64
        var costUsd: Double
        var estimatedTokens: Int64
        var estimatedCostUsd: Double
        var titleTokens: Int64
        var titleCostUsd: Double
        var apiRequests: Int64
        var apiTokens: Int64
        var apiCostUsd: Double

        init(_ totals: UsageTotals) {
            requests = totals.requests
            inputTokens = totals.inputTokens
            cachedInputTokens = totals.cachedInputTokens
            outputTokens = totals.outputTokens
            reasoningTokens = totals.reasoningTokens
            costUsd = MicroDollars.dollars(totals.costMicros)
            estimatedTokens = totals.estimatedTokens
            estimatedCostUsd = MicroDollars.dollars(totals.estimatedCostMicros)
            titleTokens = totals.titleTokens
            titleCostUsd = MicroDollars.dollars(totals.titleCostMicros)
            apiRequests = totals.apiRequests
            apiTokens = totals.apiTokens
            apiCostUsd = MicroDollars.dollars(totals.apiCostMicros)
        }
    }

    /// One model's usage on one day.
    struct DayJSON: Encodable {
        var day: String
        var model: String
        var totals: TotalsJSON
    }

    /// One model's usage over the month.
    struct ModelJSON: Encodable {
        var model: String
        var totals: TotalsJSON
    }

    /// What one conversation's replies (and its titles) cost this month.
    struct ConversationJSON: Encodable {
        var conversationId: ConversationID
        var title: String
        var replies: Int64
        var costUsd: Double
    }
}
