import Foundation
import ParleyCore
import PostgresNIO

/// Full-text search over the owner's message text and titles in PostgreSQL (`tsvector` columns of the
/// `parley_search` configuration, which ignores accents; ranked by `ts_rank_cd`; marked by `SearchMarks`).
extension PostgresChatStore {
    /// How many words a snippet shows at most.
    static let snippetWords = 16
    /// How many of the newest matching messages are ranked: this bounds the cost of a very common word whatever the
    /// number of messages.
    static let rankedCandidates = 2_000

    public func search(userID: UserID, text: String, limit: Int) async throws(StoreError) -> [SearchHit] {
        guard let terms = SearchTerms(text), limit > 0, let query = Self.tsquery(terms) else { return [] }
        return try await perform {
            try await client.withConnection { connection in
                let titles = try await connection.query(
                    """
                    SELECT c.id, c.archived, c.title, -ts_rank_cd(c.search, q, 1)::float8 AS score
                    FROM conversations c, to_tsquery('parley_search', \(query)) q
                    WHERE c.search @@ q AND c.user_id = \(userID)
                    ORDER BY score, c.id LIMIT \(limit)
                    """, logger: logger
                ).rows().map { row in
                    SearchHit(
                        conversationID: try row["id"].decode(Int64.self),
                        title: SearchMarks.mark(try row["title"].decode(String.self), terms: terms), messageID: nil,
                        role: nil, snippet: "",
                        archived: try row["archived"].decode(Bool.self), score: try row["score"].decode(Double.self))
                }
                // The best of the newest candidates by rank alone (shorter messages first among equals, as BM25
                // has them), then the text of those only.
                let messages = try await connection.query(
                    """
                    SELECT m.id, m.conversation_id, m.role, m.content, c.title, c.archived, best.score
                    FROM (SELECT id, score FROM (
                            SELECT m.id, -ts_rank_cd(m.search, q, 1)::float8 AS score
                            FROM messages m JOIN conversations c ON c.id = m.conversation_id,
                                to_tsquery('parley_search', \(query)) q
                            WHERE m.search @@ q AND c.user_id = \(userID)
                            ORDER BY m.id DESC LIMIT \(Self.rankedCandidates)) candidates
                          ORDER BY score, id LIMIT \(limit)) best
                    JOIN messages m ON m.id = best.id JOIN conversations c ON c.id = m.conversation_id
                    """, logger: logger
                ).rows().map { row in
                    SearchHit(
                        conversationID: try row["conversation_id"].decode(Int64.self),
                        title: try row["title"].decode(String.self), messageID: try row["id"].decode(Int64.self),
                        role: MessageRole(rawValue: try row["role"].decode(String.self)),
                        snippet: SearchMarks.mark(
                            try row["content"].decode(String.self), terms: terms, maxWords: Self.snippetWords),
                        archived: try row["archived"].decode(Bool.self), score: try row["score"].decode(Double.self))
                }
                return Array(
                    (titles + messages).sorted { ($0.score, $0.messageID ?? 0) < ($1.score, $1.messageID ?? 0) }
                        .prefix(limit))
            }
        }
    }

    /// The terms as `to_tsquery` text: each of a term's words (its runs of letters and digits, quoted: nothing else
    /// of the user's is written) follows the one before it (`<->`), a prefix term's last word is a prefix (`:*`),
    /// and every term must match (`&`); nil when no term holds a word.
    static func tsquery(_ terms: SearchTerms) -> String? {
        let written = terms.terms.compactMap { term -> String? in
            let words = term.text.split { !$0.isLetter && !$0.isNumber }.map { "'\($0)'" }
            guard !words.isEmpty else { return nil }
            return "(" + words.joined(separator: " <-> ") + (term.isPrefix ? ":*" : "") + ")"
        }
        return written.isEmpty ? nil : written.joined(separator: " & ")
    }
}
