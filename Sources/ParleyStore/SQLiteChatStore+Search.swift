import Foundation
import GRDB
import ParleyCore

/// Full-text search over the owner's message text and titles (FTS5, ranked by bm25).
extension SQLiteChatStore {
    /// How many words of context a snippet shows around the matches.
    static let snippetWords = 16
    /// How many of the newest matching messages are ranked: this bounds the cost of a very common word
    /// (bm25 is computed for every candidate) whatever the number of messages.
    static let rankedCandidates = 2_000

    public func search(userID: UserID, text: String, limit: Int) async throws(StoreError) -> [SearchHit] {
        guard let query = FullTextQuery(text), limit > 0 else { return [] }
        return try await perform {
            try await pool.scan { db in
                let hits =
                    try titleHits(db, query: query, userID: userID, limit: limit)
                    + messageHits(db, query: query, userID: userID, limit: limit)
                return Array(
                    hits.sorted { ($0.score, $0.messageID ?? 0) < ($1.score, $1.messageID ?? 0) }.prefix(limit))
            }
        }
    }

    /// Conversations whose title matches, with the matches marked.
    private func titleHits(_ db: Database, query: FullTextQuery, userID: UserID, limit: Int) throws -> [SearchHit] {
        try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT c.id, c.archived, highlight(conversations_fts, 0, ?, ?) AS marked_title, bm25(conversations_fts) AS score
                    FROM conversations_fts JOIN conversations c ON c.id = conversations_fts.rowid
                    WHERE conversations_fts MATCH ? AND c.user_id = ?
                    ORDER BY score LIMIT ?
                    """),
            arguments: [String(SearchHit.markStart), String(SearchHit.markEnd), query.expression, userID, limit]
        ).map { row in
            SearchHit(
                conversationID: row["id"], title: row["marked_title"], messageID: nil, role: nil, snippet: "",
                archived: row["archived"], score: row["score"])
        }
    }

    /// Messages that match: the best `limit` of the newest `rankedCandidates` matches by rank alone, then snippets for
    /// those only. A snippet costs more than a rank (and SQLite would compute one for every candidate before sorting);
    /// the snippets are read in one pass over the ids' range, since looking each id up again repeats the whole match
    /// (for a prefix, the merge of every word it begins).
    private func messageHits(_ db: Database, query: FullTextQuery, userID: UserID, limit: Int) throws -> [SearchHit] {
        let ranked = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT id, score FROM (
                        SELECT messages_fts.rowid AS id, bm25(messages_fts) AS score
                        FROM messages_fts
                        JOIN messages m ON m.id = messages_fts.rowid
                        JOIN conversations c ON c.id = m.conversation_id
                        WHERE messages_fts MATCH ? AND c.user_id = ?
                        ORDER BY messages_fts.rowid DESC LIMIT ?
                    ) ORDER BY score LIMIT ?
                    """), arguments: [query.expression, userID, Self.rankedCandidates, limit])
        let scores = Dictionary(uniqueKeysWithValues: ranked.map { ($0["id"] as MessageID, $0["score"] as Double) })
        guard let first = scores.keys.min(), let last = scores.keys.max() else { return [] }
        var arguments: StatementArguments = [
            String(SearchHit.markStart), String(SearchHit.markEnd), Self.snippetWords,
            query.expression, userID, first, last,
        ]
        arguments += StatementArguments(Array(scores.keys))
        return try Row.fetchAll(
            db,
            sql: """
                SELECT m.id, m.conversation_id, m.role, c.title, c.archived,
                       snippet(messages_fts, 0, ?, ?, '…', ?) AS snippet
                FROM messages_fts
                JOIN messages m ON m.id = messages_fts.rowid
                JOIN conversations c ON c.id = m.conversation_id
                WHERE messages_fts MATCH ? AND c.user_id = ? AND messages_fts.rowid BETWEEN ? AND ?
                  AND +messages_fts.rowid IN (\(databaseQuestionMarks(count: scores.count)))
                """, arguments: arguments
        ).map { row in
            SearchHit(
                conversationID: row["conversation_id"], title: row["title"], messageID: row["id"],
                role: MessageRole(rawValue: row["role"]), snippet: row["snippet"], archived: row["archived"],
                score: scores[row["id"]] ?? 0)
        }
    }
}
