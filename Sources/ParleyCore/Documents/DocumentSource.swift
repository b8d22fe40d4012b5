/// A numbered source of a reply: a passage of a document sent to the model, which the reply cites as `[number]` and
/// which links to the document at its page. Stored with the reply without its text.
public struct DocumentSource: Sendable, Equatable, Codable {
    public var number: Int
    public var documentID: DocumentID
    public var name: String
    public var kind: DocumentKind
    /// The page the passage is on, for a document with pages (a PDF); nil otherwise.
    public var page: Int?

    /// Creates a source.
    public init(number: Int, documentID: DocumentID, name: String, kind: DocumentKind, page: Int?) {
        self.number = number
        self.documentID = documentID
        self.name = name
        self.kind = kind
        self.page = page
    }

    /// Where a citation of it leads: the document, at its page for a PDF (the browser's viewer reads `#page=`).
    public var path: String {
        "/documents/\(documentID)" + (page.map { "#page=\($0)" } ?? "")
    }

    enum CodingKeys: String, CodingKey {
        case number
        case documentID = "document_id"
        case name, kind, page
    }
}

/// A source with the text the model is sent.
public struct DocumentPassage: Sendable, Equatable {
    public var source: DocumentSource
    public var text: String

    /// Creates a passage.
    public init(source: DocumentSource, text: String) {
        self.source = source
        self.text = text
    }
}

/// What a reply draws on: the documents sent in its branch and knowledge collections (named, and those of a
/// conversation and its assistant), the question to rank their chunks by, and how many tokens their text may take.
public struct SourceQuery: Sendable, Equatable {
    public var documentIDs: [DocumentID]
    public var collectionIDs: [CollectionID]
    /// The conversation whose collections, and whose assistant's, are drawn on too.
    public var knowledgeOf: ConversationID?
    public var question: String
    public var budget: Int

    /// Creates a query.
    public init(
        documentIDs: [DocumentID], collectionIDs: [CollectionID], knowledgeOf: ConversationID? = nil,
        question: String, budget: Int
    ) {
        self.documentIDs = documentIDs
        self.collectionIDs = collectionIDs
        self.knowledgeOf = knowledgeOf
        self.question = question
        self.budget = budget
    }
}
