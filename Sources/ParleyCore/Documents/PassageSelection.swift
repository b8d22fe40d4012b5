/// How a reply's sources are chosen from its documents, whatever the database: all their pages when the documents fit
/// the budget whole, else their best-ranked chunks; the pieces are taken in order while they fit and numbered from 1.
public enum PassageSelection {
    /// A document in scope: read, and sent in the branch or in one of the collections.
    public struct Scoped: Sendable {
        public var id: DocumentID
        public var name: String
        public var kind: DocumentKind
        public var tokens: Int

        /// Creates a document in scope.
        public init(id: DocumentID, name: String, kind: DocumentKind, tokens: Int) {
            self.id = id
            self.name = name
            self.kind = kind
            self.tokens = tokens
        }
    }

    /// A page or chunk of a document, and its estimated tokens.
    public struct Piece: Sendable {
        public var documentID: DocumentID
        public var page: Int
        public var text: String
        public var tokens: Int

        /// Creates a piece.
        public init(documentID: DocumentID, page: Int, text: String, tokens: Int) {
            self.documentID = documentID
            self.page = page
            self.text = text
            self.tokens = tokens
        }
    }

    /// The most chunks ranked; a budget is full long before (a 100,000-token budget holds about 200).
    public static let maxRanked = 400

    /// Whether `documents` go whole (a source a page) within `budget`; else their ranked chunks do.
    public static func fitWhole(_ documents: [Scoped], budget: Int) -> Bool {
        documents.reduce(0) { $0 + $1.tokens } <= budget
    }

    /// The pieces of `documents` that fit `budget`, in order, numbered from 1 (a PDF's with their page).
    public static func passages(_ pieces: [Piece], of documents: [Scoped], budget: Int) -> [DocumentPassage] {
        let byID = Dictionary(documents.map { ($0.id, $0) }) { first, _ in first }
        var passages: [DocumentPassage] = []
        var left = budget
        for piece in pieces {
            guard let document = byID[piece.documentID], piece.tokens <= left else { continue }
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
}
