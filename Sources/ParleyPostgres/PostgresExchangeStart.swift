import Logging
import ParleyCore
import PostgresNIO

/// What beginning an exchange needs of its conversation, read in one statement that locks the conversation's row for
/// the transaction: exchanges of one conversation begin one at a time, on any instance, so that each sees the branch
/// the one before left current.
struct PostgresExchangeStart {
    /// The conversation's owner.
    let owner: UserID
    /// The leaf of the branch the conversation shows.
    let currentLeaf: MessageID?
    /// The conversation's reply lease (`PostgresLeases.liveColumn`): nil without one, else whether it is live.
    let leaseLive: Bool?
    /// Whether the owner has a monthly budget to enforce (`PostgresUsageLedger.budgetAppliesColumn`).
    let budgetApplies: Bool
    /// Whether any message of the conversation may have attachments or documents to read with its history.
    let hasFiles: Bool

    /// Locks `conversationID`'s row and reads it; nil when there is no such conversation.
    static func lock(_ conversationID: ConversationID, on connection: PostgresConnection, logger: Logger)
        async throws -> PostgresExchangeStart?
    {
        guard
            let row = try await connection.query(
                """
                SELECT c.user_id, c.current_leaf_id, \(unescaped: PostgresLeases.liveColumn),
                    \(unescaped: PostgresUsageLedger.budgetAppliesColumn),
                    EXISTS (SELECT 1 FROM attachments a WHERE a.conversation_id = c.id)
                        OR EXISTS (SELECT 1 FROM documents d WHERE d.conversation_id = c.id) AS has_files
                FROM conversations c JOIN users u ON u.id = c.user_id WHERE c.id = \(conversationID)
                FOR UPDATE OF c
                """, logger: logger
            ).rows().first
        else { return nil }
        return PostgresExchangeStart(
            owner: try row["user_id"].decode(Int64.self), currentLeaf: try row["current_leaf_id"].decode(Int64?.self),
            leaseLive: try row["lease_live"].decode(Bool?.self),
            budgetApplies: try row["budget_applies"].decode(Bool.self), hasFiles: try row["has_files"].decode(Bool.self)
        )
    }
}
