import GRDB
import ParleyCore

/// Chooses the passages a reply is sent from its documents: all their pages when they fit the budget, else the chunks
/// FTS5 ranks best (BM25) for the question, as many as fit; a question with no word in them gets each document's
/// first chunks.
struct DocumentRetrieval {
    /// The most chunks ranked; a budget is full long before (a 100,000-token budget holds about 200).
    static let maxRanked = 400

    let query: SourceQuery

    /// A document in scope: read, sent in the branch or in one of the collections.
    private struct Scoped {
        var id: DocumentID
        var name: String
        var kind: DocumentKind
        var tokens: Int
    }

    /// The passages, numbered from 1.
    func passages(_ db: Database) throws -> [DocumentPassage] {
        let documents = try scope(db)
        guard !documents.isEmpty else { return [] }
        let byID = Dictionary(uniqueKeysWithValues: documents.map { ($0.id, $0) })
        let total = documents.reduce(0) { $0 + $1.tokens }
        let pieces =
            total <= query.budget
            ? try pages(of: documents.map(\.id), db)
            : try ranked(Array(byID.keys), db)
        var passages: [DocumentPassage] = []
        var left = query.budget
        for piece in pieces {
            guard let document = byID[piece.documentID] else { continue }
            guard piece.tokens <= left else { continue }
            left -= piece.tokens
            passages.append(
                DocumentPassage(
                    source: DocumentSource(
                        number: passages.count + 1, documentID: document.id, name: document.name, kind: document.kind,
                        page: document.kind == .pdf ? piece.page : nil),
                    text: piece.text))
        }
        return passages
    }

    /// A page or chunk of a document, and its estimated tokens.
    private struct Piece {
        var documentID: DocumentID
        var page: Int
        var text: String
        var tokens: Int
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
        if let match = RetrievalQuery(query.question)?.expression {
            let best = try Row.fetchAll(
                db,
                sql: """
                    SELECT c.document_id, c.page, c.text, c.tokens FROM document_chunks_fts f JOIN document_chunks c ON c.id = f.rowid
                    WHERE document_chunks_fts MATCH ? AND \(inScope) ORDER BY f.rank LIMIT \(Self.maxRanked)
                    """, arguments: StatementArguments([match] + ids))
            if !best.isEmpty { return best.map(Self.piece) }
        }
        return try Row.fetchAll(
            db,
            sql: """
                SELECT c.document_id, c.page, c.text, c.tokens FROM document_chunks c WHERE \(inScope)
                ORDER BY c.ordinal, c.document_id LIMIT \(Self.maxRanked)
                """, arguments: StatementArguments(ids)
        ).map(Self.piece)
    }

    private static func piece(_ row: Row) -> Piece {
        Piece(documentID: row["document_id"], page: row["page"], text: row["text"], tokens: row["tokens"])
    }
}
