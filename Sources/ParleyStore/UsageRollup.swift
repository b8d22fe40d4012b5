import GRDB
import ParleyCore

/// The `usage_daily` rollup: one row per day, user and model, added to in the transaction that charges a reply.
enum UsageRollup {
    /// Adds a charged reply to its owner's row for `day` and `model`.
    static func add(_ db: Database, replyID: MessageID, model: String, usage: Usage, day: UsageDay) throws {
        let totals = UsageTotals(reply: usage)
        try db.cachedStatement(sql: """
            INSERT INTO usage_daily (day, user_id, model, requests, input_tokens, cached_input_tokens, output_tokens, cost_micros,
                                     estimated_tokens, estimated_cost_micros)
            SELECT ?, c.user_id, ?, 1, ?, ?, ?, ?, ?, ? FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE m.id = ?
            ON CONFLICT (day, user_id, model) DO UPDATE SET
                requests = requests + excluded.requests,
                input_tokens = input_tokens + excluded.input_tokens,
                cached_input_tokens = cached_input_tokens + excluded.cached_input_tokens,
                output_tokens = output_tokens + excluded.output_tokens,
                cost_micros = cost_micros + excluded.cost_micros,
                estimated_tokens = estimated_tokens + excluded.estimated_tokens,
                estimated_cost_micros = estimated_cost_micros + excluded.estimated_cost_micros
            """).execute(arguments: [day.description, model, totals.inputTokens, totals.cachedInputTokens, totals.outputTokens,
                             totals.costMicros, totals.estimatedTokens, totals.estimatedCostMicros, replyID])
    }
}
