/// A piece of a document's text as retrieval finds it: its place, the page it is on, and its text.
public struct DocumentChunk: Sendable, Equatable {
    public var ordinal: Int
    /// The page, from 1 (1 for a document without pages).
    public var page: Int
    public var text: String

    /// Creates a chunk.
    public init(ordinal: Int, page: Int, text: String) {
        self.ordinal = ordinal
        self.page = page
        self.text = text
    }
}

/// What reading a document gave: its pages' text and its chunks, or why it could not be read.
public enum DocumentReading: Sendable, Equatable {
    case read(pages: [String], chunks: [DocumentChunk])
    case failed(String)
}
