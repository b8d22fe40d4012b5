import GRDB
import ParleyCore

/// The `usage_daily` rollup: one row per day, user, model and source (`chat` for replies and titles, `api` for the
/// OpenAI-compatible endpoint's completions), added to in the transaction that charges one.
enum UsageRollup {
    /// Adds a charged reply to its owner's row for `day` and `model`.
    static func add(
        _ db: Database, replyID: MessageID, model: String, usage: Usage, documentTokens: Int, day: UsageDay
    ) throws {
        var totals = UsageTotals(reply: usage)
        totals.documentTokens = Int64(documentTokens)
        try add(
            db,
            owner: "SELECT c.user_id FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE m.id = ?",
            of: replyID, model: model, totals: totals, day: day)
    }

    /// Adds a charged title request to its conversation owner's row for `day` and `model`: its tokens and cost count
    /// (a budget includes them), and `title_tokens`/`title_cost_micros` say which part was titles; no message answered.
    static func addTitle(_ db: Database, conversationID: ConversationID, model: String, usage: Usage, day: UsageDay)
        throws
    {
        var totals = UsageTotals(reply: usage)
        totals.requests = 0
        totals.titleTokens = totals.inputTokens + totals.outputTokens
        totals.titleCostMicros = totals.costMicros
        try add(
            db, owner: "SELECT user_id FROM conversations WHERE id = ?", of: conversationID, model: model,
            totals: totals, day: day)
    }

    /// Adds a charged API completion to its user's row for `day` and `model`.
    static func addAPICompletion(_ db: Database, userID: UserID, model: String, usage: Usage, day: UsageDay) throws {
        try add(
            db, owner: "SELECT id AS user_id FROM users WHERE id = ?", of: userID, model: model,
            totals: UsageTotals(reply: usage), day: day, source: .api)
    }

    /// Adds `totals` to the row of the user that `owner` (a query of one `user_id` column and one argument, `key`)
    /// finds; nothing when it finds none. (`WHERE true` tells SQLite that `ON CONFLICT` is the upsert's, not a join's.)
    private static func add(
        _ db: Database, owner: String, of key: Int64, model: String, totals: UsageTotals, day: UsageDay,
        source: UsageSource = .chat
    ) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO usage_daily (day, user_id, model, source, requests, input_tokens, cached_input_tokens, output_tokens,
                                         cost_micros, estimated_tokens, estimated_cost_micros, title_tokens, title_cost_micros,
                                         reasoning_tokens, document_tokens)
                SELECT ?, owner.user_id, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM (\(owner)) AS owner WHERE true
                ON CONFLICT (day, user_id, model, source) DO UPDATE SET
                    requests = requests + excluded.requests,
                    input_tokens = input_tokens + excluded.input_tokens,
                    cached_input_tokens = cached_input_tokens + excluded.cached_input_tokens,
                    output_tokens = output_tokens + excluded.output_tokens,
                    reasoning_tokens = reasoning_tokens + excluded.reasoning_tokens,
                    document_tokens = document_tokens + excluded.document_tokens,
                    cost_micros = cost_micros + excluded.cost_micros,
                    estimated_tokens = estimated_tokens + excluded.estimated_tokens,
                    estimated_cost_micros = estimated_cost_micros + excluded.estimated_cost_micros,
                    title_tokens = title_tokens + excluded.title_tokens,
                    title_cost_micros = title_cost_micros + excluded.title_cost_micros
                """
        ).execute(arguments: [
            day.description, model, source.rawValue, totals.requests, totals.inputTokens, totals.cachedInputTokens,
            totals.outputTokens, totals.costMicros, totals.estimatedTokens, totals.estimatedCostMicros,
            totals.titleTokens, totals.titleCostMicros, totals.reasoningTokens, totals.documentTokens, key,
        ])
    }
}
