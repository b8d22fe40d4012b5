import GRDB
import ParleyCore

/// The `usage_daily` rollup: one row per day, user and model, added to in the transaction that charges a reply.
enum UsageRollup {
    /// Adds a charged reply to its owner's row for `day` and `model`.
    static func add(_ db: Database, replyID: MessageID, model: String, usage: Usage, day: UsageDay) throws {
        try db.cachedStatement(sql: """
            INSERT INTO usage_daily (day, user_id, model, requests, input_tokens, cached_input_tokens, output_tokens, cost_micros)
            SELECT ?, c.user_id, ?, 1, ?, ?, ?, ? FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE m.id = ?
            ON CONFLICT (day, user_id, model) DO UPDATE SET
                requests = requests + excluded.requests,
                input_tokens = input_tokens + excluded.input_tokens,
                cached_input_tokens = cached_input_tokens + excluded.cached_input_tokens,
                output_tokens = output_tokens + excluded.output_tokens,
                cost_micros = cost_micros + excluded.cost_micros
            """).execute(arguments: [day.description, model, usage.promptTokens, usage.cachedPromptTokens, usage.completionTokens,
                             usage.costMicros, replyID])
    }
}
