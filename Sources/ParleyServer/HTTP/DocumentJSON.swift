import Foundation
import ParleyCore

/// A document in the JSON API: what it is, where its reading stands (`failure` says why a `failed` one could not be
/// read), and where its original is served.
struct DocumentJSON: Codable {
    var id: DocumentID
    var name: String
    var kind: DocumentKind
    /// The kind as its chip shows it (“PDF”, “Text”).
    var label: String
    var bytes: Int
    var status: DocumentStatus
    var failure: String?
    var pages: Int
    var tokenCount: Int
    /// The collection it is in, for a collection's document.
    var collectionId: CollectionID?
    var url: String
    var createdAt: Date

    init(_ document: Document) {
        id = document.id
        name = document.name
        kind = document.kind
        label = document.kind.label
        bytes = document.byteCount
        status = document.status
        failure = document.failure
        pages = document.pageCount
        tokenCount = document.tokenCount
        if case .collection(let id) = document.place { collectionId = id }
        url = DocumentController.url(of: document.id)
        createdAt = document.createdAt
    }
}

/// A numbered source of a reply in the JSON API.
struct SourceJSON: Codable {
    var number: Int
    var documentId: DocumentID
    var name: String
    var page: Int?
    var url: String

    init(_ source: DocumentSource) {
        number = source.number
        documentId = source.documentID
        name = source.name
        page = source.page
        url = source.path
    }
}
