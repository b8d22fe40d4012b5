import GRDB
import ParleyCore

/// Chooses the passages a reply is sent from its documents: all their pages when they fit the budget, else the chunks
/// FTS5 ranks best (BM25) for the question, as many as fit; a question with no word in them gets each document's
/// first chunks.
struct DocumentRetrieval {
    let query: SourceQuery

    private typealias Scoped = PassageSelection.Scoped
    private typealias Piece = PassageSelection.Piece

    /// The passages, numbered from 1.
    func passages(_ db: Database) throws -> [DocumentPassage] {
        let documents = try scope(db)
        guard !documents.isEmpty else { return [] }
        let ids = documents.map(\.id)
        let pieces =
            PassageSelection.fitWhole(documents, budget: query.budget) ? try pages(of: ids, db) : try ranked(ids, db)
        return PassageSelection.passages(pieces, of: documents, budget: query.budget)
    }

    /// The read documents sent in the branch or in the collections, oldest first.
    private func scope(_ db: Database) throws -> [Scoped] {
        var conditions: [String] = []
        var arguments: [DatabaseValueConvertible] = []
        if !query.documentIDs.isEmpty {
            conditions.append("id IN (\(databaseQuestionMarks(count: query.documentIDs.count)))")
            arguments += query.documentIDs
        }
        if !query.collectionIDs.isEmpty {
            conditions.append("collection_id IN (\(databaseQuestionMarks(count: query.collectionIDs.count)))")
            arguments += query.collectionIDs
        }
        if let conversationID = query.knowledgeOf {
            conditions.append(
                """
                collection_id IN (SELECT collection_id FROM conversation_collections WHERE conversation_id = ?
                    UNION SELECT a.collection_id FROM assistant_collections a
                    JOIN conversations c ON c.assistant_id = a.assistant_id WHERE c.id = ?)
                """)
            arguments += [conversationID, conversationID]
        }
        return try Row.fetchAll(
            db,
            sql: """
                SELECT id, name, kind, token_count FROM documents
                WHERE status = 'ready' AND (\(conditions.joined(separator: " OR "))) ORDER BY id
                """, arguments: StatementArguments(arguments)
        ).map { row in
            Scoped(
                id: row["id"], name: row["name"], kind: DocumentKind(rawValue: row["kind"]) ?? .text,
                tokens: row["token_count"])
        }
    }

    /// Every page of the documents, in order.
    private func pages(of ids: [DocumentID], _ db: Database) throws -> [Piece] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT document_id, page, text FROM document_pages
                WHERE document_id IN (\(databaseQuestionMarks(count: ids.count))) AND trim(text) != ''
                ORDER BY document_id, page
                """, arguments: StatementArguments(ids)
        ).map { row in
            let text: String = row["text"]
            return Piece(
                documentID: row["document_id"], page: row["page"], text: text,
                tokens: ContextWindow.estimatedTokens(text))
        }
    }

    /// The chunks of the documents that best match the question, best first; without a match, each document's chunks
    /// in order, the documents taking turns.
    private func ranked(_ ids: [DocumentID], _ db: Database) throws -> [Piece] {
        let inScope = "c.document_id IN (\(databaseQuestionMarks(count: ids.count)))"
        let words = RetrievalWords.of(query.question)
        if !words.isEmpty {
            // FTS5's `"word" OR "word"`: each word quoted, any of them matching.
            let match = words.map { "\"\($0)\"" }.joined(separator: " OR ")
            let best = try Row.fetchAll(
                db,
                sql: """
                    SELECT c.document_id, c.page, c.text, c.tokens FROM document_chunks_fts f JOIN document_chunks c ON c.id = f.rowid
                    WHERE document_chunks_fts MATCH ? AND \(inScope) ORDER BY f.rank LIMIT \(PassageSelection.maxRanked)
                    """, arguments: StatementArguments([match] + ids))
            if !best.isEmpty { return best.map(Self.piece) }
        }
        return try Row.fetchAll(
            db,
            sql: """
                SELECT c.document_id, c.page, c.text, c.tokens FROM document_chunks c WHERE \(inScope)
                ORDER BY c.ordinal, c.document_id LIMIT \(PassageSelection.maxRanked)
                """, arguments: StatementArguments(ids)
        ).map(Self.piece)
    }

    private static func piece(_ row: Row) -> Piece {
        Piece(documentID: row["document_id"], page: row["page"], text: row["text"], tokens: row["tokens"])
    }
}
