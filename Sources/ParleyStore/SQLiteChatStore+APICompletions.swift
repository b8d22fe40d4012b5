import GRDB
import ParleyCore

extension SQLiteChatStore: APICompletionStore {
    public func beginAPICompletion(userID: UserID, keyID: Int64?, model: String) async throws(StoreError)
        -> APICompletionID
    {
        try await perform {
            try await writer.write { db in
                let now = StoredDate.now
                try BudgetLedger.enforce(db, userID: userID, today: UsageDay(now.date))
                try db.cachedStatement(
                    sql: """
                        INSERT INTO api_completions (user_id, key_id, model, status, created_at, updated_at)
                        VALUES (?, ?, ?, 'streaming', ?, ?)
                        """
                ).execute(arguments: [userID, keyID, model, now, now])
                return db.lastInsertedRowID
            }
        }
    }

    public func finishAPICompletion(id: APICompletionID, outcome: ReplyOutcome) async throws(StoreError) -> Usage {
        try await perform {
            try await writer.write { db in
                let now = StoredDate.now
                let (usage, priceID) = try PriceVersions.charge(outcome, db, at: now.date)
                try db.cachedStatement(
                    sql: """
                        UPDATE api_completions SET status = ?, model = COALESCE(?, model), provider = ?, prompt_tokens = ?,
                            cached_prompt_tokens = ?, completion_tokens = ?, reasoning_tokens = ?, cost_micros = ?,
                            usage_estimated = ?, price_version_id = ?, error_code = ?, updated_at = ?
                        WHERE id = ?
                        """
                ).execute(arguments: [
                    outcome.status.rawValue, outcome.pricing?.modelID, outcome.pricing?.providerID, usage.promptTokens,
                    usage.cachedPromptTokens, usage.completionTokens, usage.reasoningTokens, usage.costMicros,
                    usage.estimated, priceID, outcome.failure?.code, now, id,
                ])
                if let pricing = outcome.pricing,
                    let userID = try UserID.fetchOne(
                        db.cachedStatement(sql: "SELECT user_id FROM api_completions WHERE id = ?"), arguments: [id])
                {
                    try UsageRollup.addAPICompletion(
                        db, userID: userID, model: pricing.modelID, usage: usage, day: UsageDay(now.date))
                }
                return usage
            }
        }
    }
}
