/// Why a document's text could not be read; each says what the person can do.
public enum DocumentRejection: Error, Sendable, Equatable {
    /// Neither a PDF, a DOCX nor a text format Parley reads (by its name and its bytes).
    case unsupported(name: String)
    /// The bytes are not what the name says (a `.pdf` that is no PDF).
    case typeMismatch(name: String)
    /// The name holds a path separator or a control character, or is empty or too long.
    case badName
    /// Larger than the limit, in bytes (or, for a DOCX, once uncompressed).
    case tooLarge(limit: Int)
    /// The PDF needs a password.
    case passwordProtected
    /// The file holds no text (a PDF of scanned pages).
    case noText
    /// The file is damaged or cut short.
    case malformed
    /// Reading it took longer, or more memory, than a document may.
    case tooCostly

    /// The words shown for it.
    public var message: String {
        switch self {
        case .unsupported(let name):
            "“\(name)” is not a document Parley reads: PDF, DOCX, or text (plain, Markdown, CSV, JSON, HTML, code)."
        case .typeMismatch(let name): "“\(name)” does not hold what its name says."
        case .badName: "A document's name must be 1 to 200 characters, without slashes or control characters."
        case .tooLarge(let limit): "A document may be at most \(limit / 1_048_576) MB."
        case .passwordProtected: "This PDF is password-protected: remove the password and attach it again."
        case .noText: "No text in this file: scanned pages need OCR, which Parley does not do."
        case .malformed: "This file is damaged or cut short."
        case .tooCostly: "Reading this file took too long or too much memory."
        }
    }
}
