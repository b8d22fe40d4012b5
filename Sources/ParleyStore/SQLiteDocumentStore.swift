import Foundation
import GRDB
import ParleyCore

/// Documents, their pages and their indexed chunks, in SQLite.
public struct SQLiteDocumentStore: DocumentStore {
    let pool: DatabasePool
    let writer: GroupCommitWriter

    /// Creates the store over an open database.
    public init(database: ParleyDatabase) {
        pool = database.pool
        writer = database.writer
    }

    public func addDocument(_ document: NewDocument, userID: UserID) async throws(StoreError) -> Document {
        try await perform { try await writer.write { db in try DocumentRows.insert(db, document, userID: userID) } }
    }

    public func saveReading(_ reading: DocumentReading, documentID: DocumentID) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                switch reading {
                case .failed(let reason):
                    try db.cachedStatement(sql: "UPDATE documents SET status = 'failed', failure = ? WHERE id = ?")
                        .execute(arguments: [reason, documentID])
                case .read(let pages, let chunks):
                    try Self.insert(pages: pages, chunks: chunks, of: documentID, db)
                }
            }
        }
    }

    public func document(id: DocumentID, userID: UserID) async throws(StoreError) -> Document? {
        try await perform {
            try pool.lookup { db in
                try Row.fetchOne(
                    db.cachedStatement(
                        sql: "SELECT \(DocumentRows.columns()) FROM documents WHERE id = ? AND user_id = ?"),
                    arguments: [id, userID]
                ).map(Document.init(row:))
            }
        }
    }

    public func documentContent(id: DocumentID, userID: UserID) async throws(StoreError) -> DocumentContent? {
        try await perform {
            try await pool.scan { db in
                try Row.fetchOne(
                    db, sql: "SELECT \(DocumentRows.columns()), data FROM documents WHERE id = ? AND user_id = ?",
                    arguments: [id, userID]
                ).map(DocumentContent.init(row:))
            }
        }
    }

    public func deleteDocument(id: DocumentID, userID: UserID) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(
                    sql: "DELETE FROM documents WHERE id = ? AND user_id = ? AND message_id IS NULL"
                ).execute(arguments: [id, userID])
                guard db.changesCount == 1 else { throw StoreError.notFound }
            }
        }
    }

    public func deleteUnsentDocuments(before date: Date) async throws(StoreError) -> Int {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(
                    sql: """
                        DELETE FROM documents WHERE conversation_id IS NOT NULL AND message_id IS NULL AND created_at < ?
                        """
                ).execute(arguments: [StoredDate(date)])
                return db.changesCount
            }
        }
    }

    public func documentsToRead() async throws(StoreError) -> [DocumentContent] {
        try await perform {
            try await pool.scan { db in
                try Row.fetchAll(
                    db,
                    sql: "SELECT \(DocumentRows.columns()), data FROM documents WHERE status = 'reading' ORDER BY id"
                ).map(DocumentContent.init(row:))
            }
        }
    }

    public func passages(for query: SourceQuery) async throws(StoreError) -> [DocumentPassage] {
        guard !query.documentIDs.isEmpty || !query.collectionIDs.isEmpty || query.knowledgeOf != nil, query.budget > 0
        else { return [] }
        return try await perform { try await pool.scan { db in try DocumentRetrieval(query: query).passages(db) } }
    }

    /// Writes a read document's pages and chunks (the chunks' trigger indexes them) and marks it `ready`, with its
    /// text's size counted toward its owner's storage; nothing when it was deleted while it was read.
    private static func insert(pages: [String], chunks: [DocumentChunk], of id: DocumentID, _ db: Database) throws {
        guard
            try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM documents WHERE id = ?"), arguments: [id]) == true
        else { return }
        let page = try db.cachedStatement(sql: "INSERT INTO document_pages (document_id, page, text) VALUES (?, ?, ?)")
        for (index, text) in pages.enumerated() { try page.execute(arguments: [id, index + 1, text]) }
        let chunk = try db.cachedStatement(
            sql: "INSERT INTO document_chunks (document_id, ordinal, page, tokens, text) VALUES (?, ?, ?, ?, ?)")
        for piece in chunks {
            try chunk.execute(arguments: [
                id, piece.ordinal, piece.page, ContextWindow.estimatedTokens(piece.text), piece.text,
            ])
        }
        let textBytes = pages.reduce(0) { $0 + $1.utf8.count } + chunks.reduce(0) { $0 + $1.text.utf8.count }
        try db.cachedStatement(
            sql: """
                UPDATE documents SET status = 'ready', failure = NULL, page_count = ?, token_count = ?, text_bytes = ?
                WHERE id = ?
                """
        ).execute(arguments: [
            pages.count, pages.reduce(0) { $0 + ContextWindow.estimatedTokens($1) }, textBytes, id,
        ])
    }
}

extension DocumentContent {
    /// A document with its bytes (`data`), from a row selected with `DocumentRows.columns` and `data`.
    init(row: Row) {
        let data: Data = row["data"]
        self.init(document: Document(row: row), bytes: [UInt8](data))
    }
}
