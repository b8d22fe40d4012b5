import Logging
import PostgresNIO

/// Each user's stored bytes are `users.stored_bytes` plus their rows of `stored_byte_changes`, which the bookkeeping
/// triggers insert; folding moves the changes into the users' rows, in one statement (readers see the total before or
/// after it, never half of it). The instances fold every second (`PostgresReplyRelay`), so the changes stay few.
enum PostgresStoredBytes {
    /// Moves every change into its user's row; the changes of users deleted since are dropped.
    static func fold(client: PostgresClient, logger: Logger) async throws {
        try await client.query(
            """
            WITH moved AS (DELETE FROM stored_byte_changes RETURNING user_id, bytes),
                totals AS (SELECT user_id, SUM(bytes)::bigint AS bytes FROM moved GROUP BY user_id)
            UPDATE users SET stored_bytes = users.stored_bytes + totals.bytes
            FROM totals WHERE users.id = totals.user_id
            """, logger: logger)
    }
}
