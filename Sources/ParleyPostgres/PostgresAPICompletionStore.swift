import Foundation
import Logging
import ParleyCore
import PostgresNIO

/// The cost records of the OpenAI-compatible endpoint's completions in PostgreSQL, started within the user's budget
/// and charged to the rollup as the API's.
public struct PostgresAPICompletionStore: APICompletionStore {
    let client: PostgresClient
    let logger: Logger
    /// The instance whose completions' leases this store takes.
    let instanceID: UUID

    /// Creates the store over a database.
    public init(database: PostgresStorage) {
        client = database.client
        logger = database.logger
        instanceID = database.instanceID
    }

    public func beginAPICompletion(userID: UserID, keyID: Int64?, model: String) async throws(StoreError)
        -> APICompletionID
    {
        let now = StoredMoment.now
        return try await perform {
            try await client.withTransaction(logger: logger) { connection in
                try await PostgresUsageLedger(connection: connection, logger: logger)
                    .enforceBudget(userID: userID, today: UsageDay(now))
                // The row and its lease for this instance, in one statement.
                return
                    try await connection.query(
                        """
                        WITH completion AS (
                            INSERT INTO api_completions (user_id, key_id, model, status, created_at, updated_at)
                            VALUES (\(userID), \(keyID), \(model), 'streaming', \(now), \(now)) RETURNING id),
                        lease AS (
                            INSERT INTO reply_leases (completion_id, instance_id, expires_at)
                            SELECT id, \(instanceID), now() + \(PostgresLeases.duration)::interval FROM completion)
                        SELECT id FROM completion
                        """, logger: logger
                    ).rows().first?["id"].decode(Int64.self) ?? 0
            }
        }
    }

    public func finishAPICompletion(id: APICompletionID, outcome: ReplyOutcome) async throws(StoreError) -> Usage {
        let now = StoredMoment.now
        return try await perform {
            try await client.withTransaction(logger: logger) { connection in
                let ledger = PostgresUsageLedger(connection: connection, logger: logger)
                let (usage, priceID) = try await ledger.charge(outcome, at: now)
                // The row, and its lease dropped, in one statement.
                let owner = try await connection.query(
                    """
                    WITH lease AS (DELETE FROM reply_leases WHERE completion_id = \(id))
                    UPDATE api_completions SET status = \(outcome.status.rawValue),
                        model = COALESCE(\(outcome.pricing?.modelID), model), provider = \(outcome.pricing?.providerID),
                        prompt_tokens = \(usage.promptTokens), cached_prompt_tokens = \(usage.cachedPromptTokens),
                        completion_tokens = \(usage.completionTokens), reasoning_tokens = \(usage.reasoningTokens),
                        cost_micros = \(usage.costMicros), usage_estimated = \(usage.estimated),
                        price_version_id = \(priceID), error_code = \(outcome.failure?.code), updated_at = \(now)
                    WHERE id = \(id) RETURNING user_id
                    """, logger: logger
                ).rows().first?["user_id"].decode(Int64.self)
                if let pricing = outcome.pricing, let owner {
                    try await ledger.add(
                        UsageTotals(reply: usage), userID: owner, model: pricing.modelID, day: UsageDay(now),
                        source: .api)
                }
                return usage
            }
        }
    }
}
