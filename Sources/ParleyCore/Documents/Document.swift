import Foundation

/// What a document is, decided from its name's extension and checked against its bytes (`DocumentKind.detect`).
public enum DocumentKind: String, Sendable, Equatable, Codable {
    case pdf
    case docx
    /// Text: plain, Markdown, CSV, JSON, source code and the like, read as it is.
    case text
    /// HTML, read as its text.
    case html

    /// The media type the original is served with: text and HTML as plain text, so that no uploaded page runs.
    public var contentType: String {
        switch self {
        case .pdf: "application/pdf"
        case .docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
        case .text, .html: "text/plain; charset=utf-8"
        }
    }

    /// The short label shown on a document's chip.
    public var label: String {
        switch self {
        case .pdf: "PDF"
        case .docx: "DOCX"
        case .text: "Text"
        case .html: "HTML"
        }
    }
}

/// Where a document is in its reading: stored and queued, read (its text indexed), or refused with a reason.
public enum DocumentStatus: String, Sendable, Equatable, Codable {
    case reading, ready, failed
}

/// Where a document belongs: a conversation (sent with one of its messages, or waiting in the composer) or a
/// knowledge collection.
public enum DocumentPlace: Sendable, Equatable {
    case conversation(ConversationID)
    case collection(CollectionID)
}

/// A stored document without its bytes or text.
public struct Document: Sendable, Equatable {
    public var id: DocumentID
    public var userID: UserID
    public var place: DocumentPlace
    /// The message it was sent with; nil while it waits in the composer, and for a collection's.
    public var messageID: MessageID?
    /// The name it had on the uploader's machine (checked: no path separator or control character).
    public var name: String
    public var kind: DocumentKind
    public var byteCount: Int
    public var status: DocumentStatus
    /// Why it could not be read, for a `failed` one.
    public var failure: String?
    /// Its pages once read (1 for all but PDFs).
    public var pageCount: Int
    /// Its text's estimated tokens once read.
    public var tokenCount: Int
    public var createdAt: Date

    /// Creates a document value.
    public init(
        id: DocumentID, userID: UserID, place: DocumentPlace, messageID: MessageID? = nil, name: String,
        kind: DocumentKind, byteCount: Int, status: DocumentStatus, failure: String? = nil, pageCount: Int = 0,
        tokenCount: Int = 0, createdAt: Date
    ) {
        self.id = id
        self.userID = userID
        self.place = place
        self.messageID = messageID
        self.name = name
        self.kind = kind
        self.byteCount = byteCount
        self.status = status
        self.failure = failure
        self.pageCount = pageCount
        self.tokenCount = tokenCount
        self.createdAt = createdAt
    }
}

/// A document's original bytes with what is known of it, as `GET /documents/{id}` serves them.
public struct DocumentContent: Sendable, Equatable {
    public var document: Document
    public var bytes: [UInt8]

    /// Creates the content.
    public init(document: Document, bytes: [UInt8]) {
        self.document = document
        self.bytes = bytes
    }
}

/// A document checked by its name and bytes and ready to store (its text is read after).
public struct NewDocument: Sendable, Equatable {
    public var name: String
    public var kind: DocumentKind
    public var bytes: [UInt8]
    public var place: DocumentPlace

    /// Creates a new document value.
    public init(name: String, kind: DocumentKind, bytes: [UInt8], place: DocumentPlace) {
        self.name = name
        self.kind = kind
        self.bytes = bytes
        self.place = place
    }
}
