import HTTPTypes
import ParleyCore
import ParleyDocuments

extension AppError {
    /// The HTTP form of a document refused at upload; `name` is the file's name as sent.
    init(_ error: DocumentIntakeError, name: String) {
        switch error {
        case .rejected(let rejection):
            let status: HTTPResponse.Status
            let code: String
            switch rejection {
            case .unsupported: (status, code) = (.unsupportedMediaType, "unsupported_document")
            case .typeMismatch: (status, code) = (.unsupportedMediaType, "document_type_mismatch")
            case .badName: (status, code) = (.unprocessableContent, "invalid_document_name")
            case .tooLarge: (status, code) = (.contentTooLarge, "document_too_large")
            case .passwordProtected: (status, code) = (.unprocessableContent, "password_protected")
            case .noText: (status, code) = (.unprocessableContent, "no_text")
            case .malformed: (status, code) = (.unprocessableContent, "malformed_document")
            case .tooCostly: (status, code) = (.unprocessableContent, "document_too_costly")
            }
            self.init(status, code: code, message: rejection.message)
        case .store(.notFound): self = .notFound
        case .store(.storageFull(let status)): self = .storageFull(status)
        case .store(.diskFull): self = .diskFull
        case .store: self = .internalError
        case .busy:
            self.init(
                .serviceUnavailable, code: "documents_busy",
                message: "Many documents are being read right now. Try “\(name)” again in a few seconds.",
                headers: [.retryAfter: "5"])
        }
    }

    /// The refusal of a document that could not be read, naming it.
    static func unreadable(_ document: Document) -> AppError {
        AppError(
            .unprocessableContent, code: "document_unreadable",
            message: "“\(document.name)”: \(document.failure ?? "it could not be read.")")
    }
}
