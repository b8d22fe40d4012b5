import Foundation
import Logging
import ParleyCore
import PostgresNIO

/// Documents, their pages and their indexed chunks, in PostgreSQL; chunks are ranked by `ts_rank_cd` over their
/// `tsvector`.
public struct PostgresDocumentStore: DocumentStore {
    let client: PostgresClient
    let logger: Logger

    /// Creates the store over a database.
    public init(database: PostgresStorage) {
        client = database.client
        logger = database.logger
    }

    public func addDocument(_ document: NewDocument, userID: UserID) async throws(StoreError) -> Document {
        try await perform {
            try await client.withTransaction(logger: logger) { connection in
                try await PostgresDocumentRows.insert(document, userID: userID, on: connection, logger: logger)
            }
        }
    }

    public func saveReading(_ reading: DocumentReading, documentID: DocumentID) async throws(StoreError) {
        try await perform {
            switch reading {
            case .failed(let reason):
                try await client.query(
                    "UPDATE documents SET status = 'failed', failure = \(reason) WHERE id = \(documentID)",
                    logger: logger)
            case .read(let pages, let chunks):
                try await client.withTransaction(logger: logger) { connection in
                    try await insert(pages: pages, chunks: chunks, of: documentID, on: connection)
                }
            }
        }
    }

    public func document(id: DocumentID, userID: UserID) async throws(StoreError) -> Document? {
        try await perform {
            try await client.query(
                """
                SELECT \(unescaped: PostgresDocumentRows.columns) FROM documents WHERE id = \(id) AND user_id = \(userID)
                """, logger: logger
            ).rows().first.map(Document.init(row:))
        }
    }

    public func documentContent(id: DocumentID, userID: UserID) async throws(StoreError) -> DocumentContent? {
        try await perform {
            try await client.query(
                """
                SELECT \(unescaped: PostgresDocumentRows.columns), data FROM documents
                WHERE id = \(id) AND user_id = \(userID)
                """, logger: logger
            ).rows().first.map(DocumentContent.init(row:))
        }
    }

    public func deleteDocument(id: DocumentID, userID: UserID) async throws(StoreError) {
        try await perform {
            let deleted = try await client.query(
                "DELETE FROM documents WHERE id = \(id) AND user_id = \(userID) AND message_id IS NULL RETURNING 1",
                logger: logger
            ).rows()
            guard deleted.count == 1 else { throw StoreError.notFound }
        }
    }

    public func deleteUnsentDocuments(before date: Date) async throws(StoreError) -> Int {
        try await perform {
            try await client.query(
                """
                DELETE FROM documents WHERE conversation_id IS NOT NULL AND message_id IS NULL AND created_at < \(date)
                RETURNING 1
                """, logger: logger
            ).rows().count
        }
    }

    public func documentsToRead() async throws(StoreError) -> [DocumentContent] {
        try await perform {
            try await client.query(
                """
                SELECT \(unescaped: PostgresDocumentRows.columns), data FROM documents WHERE status = 'reading'
                ORDER BY id
                """, logger: logger
            ).rows().map(DocumentContent.init(row:))
        }
    }

    public func passages(for query: SourceQuery) async throws(StoreError) -> [DocumentPassage] {
        guard !query.documentIDs.isEmpty || !query.collectionIDs.isEmpty || query.knowledgeOf != nil, query.budget > 0
        else { return [] }
        return try await perform {
            let documents = try await scope(of: query)
            guard !documents.isEmpty else { return [] }
            let ids = documents.map(\.id)
            let pieces =
                PassageSelection.fitWhole(documents, budget: query.budget)
                ? try await pages(of: ids) : try await ranked(ids, question: query.question)
            return PassageSelection.passages(pieces, of: documents, budget: query.budget)
        }
    }

    /// The read documents sent in the branch, in the collections or in those of the conversation (and its
    /// assistant), oldest first.
    private func scope(of query: SourceQuery) async throws -> [PassageSelection.Scoped] {
        try await client.query(
            """
            SELECT id, name, kind, token_count FROM documents
            WHERE status = 'ready' AND (id = ANY(\(query.documentIDs)) OR collection_id = ANY(\(query.collectionIDs))
                OR collection_id IN (
                    SELECT collection_id FROM conversation_collections WHERE conversation_id = \(query.knowledgeOf)
                    UNION SELECT a.collection_id FROM assistant_collections a
                    JOIN conversations c ON c.assistant_id = a.assistant_id WHERE c.id = \(query.knowledgeOf)))
            ORDER BY id
            """, logger: logger
        ).rows().map { row in
            PassageSelection.Scoped(
                id: try row["id"].decode(Int64.self), name: try row["name"].decode(String.self),
                kind: DocumentKind(rawValue: try row["kind"].decode(String.self)) ?? .text,
                tokens: Int(try row["token_count"].decode(Int64.self)))
        }
    }

    /// Every page of the documents, in order.
    private func pages(of ids: [DocumentID]) async throws -> [PassageSelection.Piece] {
        try await client.query(
            """
            SELECT document_id, page, text FROM document_pages WHERE document_id = ANY(\(ids)) AND trim(text) <> ''
            ORDER BY document_id, page
            """, logger: logger
        ).collect().map { row in
            let (documentID, page, text) = try row.decode((Int64, Int64, String).self)
            return PassageSelection.Piece(
                documentID: documentID, page: Int(page), text: text, tokens: ContextWindow.estimatedTokens(text))
        }
    }

    /// The chunks of the documents that best match the question's words (any of them, each quoted as a lexeme, so
    /// that nothing of the user's is read as query syntax), best first; without a match, each document's chunks in
    /// order, the documents taking turns.
    private func ranked(_ ids: [DocumentID], question: String) async throws -> [PassageSelection.Piece] {
        let words = RetrievalWords.of(question)
        if !words.isEmpty {
            let best = try await client.query(
                """
                SELECT c.document_id, c.page, c.text, c.tokens
                FROM document_chunks c, to_tsquery('parley_search', \(words.map { "'\($0)'" }.joined(separator: " | "))) q
                WHERE c.search @@ q AND c.document_id = ANY(\(ids))
                ORDER BY ts_rank_cd(c.search, q) DESC, c.id LIMIT \(PassageSelection.maxRanked)
                """, logger: logger
            ).collect()
            if !best.isEmpty { return try best.map(Self.piece) }
        }
        return try await client.query(
            """
            SELECT c.document_id, c.page, c.text, c.tokens FROM document_chunks c WHERE c.document_id = ANY(\(ids))
            ORDER BY c.ordinal, c.document_id LIMIT \(PassageSelection.maxRanked)
            """, logger: logger
        ).collect().map(Self.piece)
    }

    /// A chunk from a row of its document, page, text and tokens.
    private static func piece(_ row: PostgresRow) throws -> PassageSelection.Piece {
        let (documentID, page, text, tokens) = try row.decode((Int64, Int64, String, Int64).self)
        return PassageSelection.Piece(documentID: documentID, page: Int(page), text: text, tokens: Int(tokens))
    }

    /// Writes a read document's pages and chunks and marks it `ready`, with its text's size counted toward its
    /// owner's storage; nothing when it was deleted while it was read.
    private func insert(pages: [String], chunks: [DocumentChunk], of id: DocumentID, on connection: PostgresConnection)
        async throws
    {
        let exists = try await connection.query(
            "SELECT 1 FROM documents WHERE id = \(id) FOR UPDATE", logger: logger
        ).rows()
        guard !exists.isEmpty else { return }
        try await connection.query(
            """
            INSERT INTO document_pages (document_id, page, text)
            SELECT \(id)::bigint, ordinality, text FROM unnest(\(pages)::text[]) WITH ORDINALITY AS t(text, ordinality)
            """, logger: logger)
        try await connection.query(
            """
            INSERT INTO document_chunks (document_id, ordinal, page, tokens, text)
            SELECT \(id)::bigint, * FROM unnest(\(chunks.map { Int64($0.ordinal) })::bigint[],
                \(chunks.map { Int64($0.page) })::bigint[],
                \(chunks.map { Int64(ContextWindow.estimatedTokens($0.text)) })::bigint[],
                \(chunks.map(\.text))::text[])
            """, logger: logger)
        let textBytes = pages.reduce(0) { $0 + $1.utf8.count } + chunks.reduce(0) { $0 + $1.text.utf8.count }
        let tokens = pages.reduce(0) { $0 + ContextWindow.estimatedTokens($1) }
        try await connection.query(
            """
            UPDATE documents SET status = 'ready', failure = NULL, page_count = \(pages.count), token_count = \(tokens),
                text_bytes = \(textBytes)
            WHERE id = \(id)
            """, logger: logger)
    }
}
