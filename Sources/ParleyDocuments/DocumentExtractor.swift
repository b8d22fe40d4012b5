import Foundation
import ParleyCore

/// A document's text, read once at upload: its kind, its pages' text (one page for all but PDFs) and its chunks.
public struct ExtractedDocument: Sendable, Equatable {
    public var name: String
    public var kind: DocumentKind
    public var pages: [String]
    public var chunks: [DocumentChunk]
}

/// Reads documents' text: checks the name, the size and that the bytes are what the name says, then reads the text
/// (PDF and DOCX in child processes under time and memory limits) and chunks it.
public struct DocumentExtractor: Sendable {
    /// The longest name, in characters.
    public static let maxNameLength = 200

    public var maxBytes: Int
    public var seconds: Int
    public var memoryBytes: Int
    public var chunker = DocumentChunker()

    /// Creates an extractor for documents of up to `maxBytes`, each read within `seconds` and `memoryBytes`.
    public init(maxBytes: Int = 32 * 1_048_576, seconds: Int = 30, memoryBytes: Int = 512 * 1_048_576) {
        self.maxBytes = maxBytes
        self.seconds = seconds
        self.memoryBytes = memoryBytes
    }

    /// The text of the document `name` holding `bytes`.
    public func extract(name: String, bytes: [UInt8]) async throws(DocumentRejection) -> ExtractedDocument {
        try await read(check(name: name, bytes: bytes), name: name, bytes: bytes)
    }

    /// The kind of the document `name` holding `bytes`, once its name, size and type are checked (without reading it).
    public func check(name: String, bytes: [UInt8]) throws(DocumentRejection) -> DocumentKind {
        guard Self.isAcceptable(name: name) else { throw .badName }
        guard bytes.count <= maxBytes else { throw .tooLarge(limit: maxBytes) }
        return try DocumentKind.detect(name: name, bytes: bytes)
    }

    /// The text of a checked document of `kind`: PDF and DOCX read in child processes, under limits.
    public func read(_ kind: DocumentKind, name: String, bytes: [UInt8]) async throws(DocumentRejection)
        -> ExtractedDocument
    {
        let pages =
            kind == .pdf || kind == .docx
            ? try await readInChild(kind, bytes: bytes) : try Self.readInProcess(name: name, bytes: bytes)
        guard pages.contains(where: { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }) else {
            throw .noText
        }
        return ExtractedDocument(name: name, kind: kind, pages: pages, chunks: chunker.chunks(of: pages))
    }

    /// The text of a document read in this process (text formats and HTML); `.unsupported` for PDF and DOCX, which
    /// `extract` reads in child processes.
    public static func readInProcess(name: String, bytes: [UInt8]) throws(DocumentRejection) -> [String] {
        switch try DocumentKind.detect(name: name, bytes: bytes) {
        case .text: return [TextDecoding.decode(bytes)]
        case .html: return [HTMLText.text(TextDecoding.decode(bytes))]
        case .pdf, .docx: throw .unsupported(name: name)
        }
    }

    /// Whether `name` may name a document: 1 to `maxNameLength` characters, no path separator, no control character.
    public static func isAcceptable(name: String) -> Bool {
        (1...maxNameLength).contains(name.count) && name != "." && name != ".."
            && !name.unicodeScalars.contains { $0 == "/" || $0 == "\\" || $0.properties.generalCategory == .control }
    }

    /// A PDF's pages or a DOCX's text, from a private temporary copy of `bytes`.
    private func readInChild(_ kind: DocumentKind, bytes: [UInt8]) async throws(DocumentRejection) -> [String] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("parley-doc-\(UUID().uuidString)").path
        guard
            FileManager.default.createFile(atPath: file, contents: Data(bytes), attributes: [.posixPermissions: 0o600])
        else { throw .tooCostly }
        defer { try? FileManager.default.removeItem(atPath: file) }
        let runner = ChildProcess(memoryBytes: memoryBytes, seconds: seconds, maxOutputBytes: 8 * maxBytes)
        switch kind {
        case .pdf: return try await PDFText.pages(of: file, runner: runner)
        default: return [try await DOCXText.text(of: file, runner: runner)]
        }
    }
}
