import Foundation
import Logging
import ParleyCore
import PostgresNIO

/// Which instance runs each streaming reply and API completion, and until when: a lease, taken in the statement that
/// inserts the reply's or completion's row, renewed every second by its instance (`PostgresReplyRelay`) and dropped in
/// the statement that finishes it. A reply whose lease ran out lost its instance (a crash, a kill, a partition) and is
/// marked `interrupted` by whichever instance sees it first. A conversation holds at most one lease, which is the
/// one-reply-at-a-time rule on every instance. Times are the database's (`now()`), so the instances' clocks never
/// matter.
enum PostgresLeases {
    /// How long a lease lasts after it was taken or last renewed.
    static let duration = "8 seconds"

    /// The column `lease_live` of the conversation row `c`: nil when no lease holds it, else whether the lease is live.
    static let liveColumn =
        "(SELECT l.expires_at >= now() FROM reply_leases l WHERE l.conversation_id = c.id) AS lease_live"

    /// Makes sure no live lease holds a conversation whose row lock the caller holds, given its `liveColumn`: ends the
    /// conversation's reply whose lease ran out, if any; `.replyRunning` while a live one holds it. The caller then
    /// takes the new reply's lease with the reply's row.
    static func free(
        _ conversationID: ConversationID, lease live: Bool?, on connection: PostgresConnection, logger: Logger
    ) async throws {
        guard let live else { return }
        guard !live else { throw StoreError.replyRunning }
        _ = try await interruptUnleased(in: conversationID, on: connection, logger: logger)
    }

    /// Renews every lease `instance` holds.
    static func renew(for instance: UUID, client: PostgresClient, logger: Logger) async throws {
        try await client.query(
            "UPDATE reply_leases SET expires_at = now() + \(duration)::interval WHERE instance_id = \(instance)",
            logger: logger)
    }

    /// Marks `interrupted` every streaming reply (of one conversation, when given) and API completion that no live
    /// lease holds, keeping the text saved, and drops the leases that ran out; returns the replies it marked. Two
    /// instances doing so at once mark each reply once: the second waits for the first's row locks, then finds it no
    /// longer streaming.
    static func interruptUnleased(
        in conversationID: ConversationID? = nil, on connection: PostgresConnection, logger: Logger
    ) async throws -> [Message] {
        try await connection.query("DELETE FROM reply_leases WHERE expires_at < now()", logger: logger)
        let now = StoredMoment.now
        let replies = try await connection.query(
            """
            UPDATE messages SET status = 'interrupted', updated_at = \(now)
            WHERE status = 'streaming' AND (\(conversationID)::bigint IS NULL OR conversation_id = \(conversationID))
                AND NOT EXISTS (SELECT 1 FROM reply_leases l WHERE l.message_id = messages.id)
            RETURNING \(unescaped: Message.postgresColumns())
            """, logger: logger
        ).rows().map(Message.init(row:))
        let questions = replies.compactMap(\.parentID)
        if !questions.isEmpty {
            try await connection.query(
                "UPDATE messages SET search_held = false WHERE search_held AND id = ANY(\(questions))", logger: logger)
        }
        if conversationID == nil {
            try await connection.query(
                """
                UPDATE api_completions SET status = 'interrupted', updated_at = \(now)
                WHERE status = 'streaming'
                    AND NOT EXISTS (SELECT 1 FROM reply_leases l WHERE l.completion_id = api_completions.id)
                """, logger: logger)
        }
        return replies
    }
}
