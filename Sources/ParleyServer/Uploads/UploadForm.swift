import Foundation
import Hummingbird
import NIOCore
import ParleyCore

/// A file part of an upload: its field, the name it had on the sender's machine and its bytes.
struct UploadedFile: Sendable {
    var field: String
    var fileName: String
    var bytes: [UInt8]
}

/// The text fields and files of a `multipart/form-data` body, read part by part as the body streams in:
/// a request over its limits is refused (413, or 422 for too many images) as soon as that is known, without reading
/// the rest. When the CSRF check was left to the form (a browser's multipart post), the `csrf_token` field must come
/// before any file and match, else 403 before any file byte is kept.
struct UploadForm: Sendable {
    /// The text fields' values, in order, by name.
    var fields: [String: [String]] = [:]
    var files: [UploadedFile] = []

    /// The (first) value of a text field.
    subscript(name: String) -> String? { fields[name]?.first }

    /// Every value of a repeated text field.
    func values(named name: String) -> [String] { fields[name] ?? [] }

    /// The files of one file field, in order.
    func files(named name: String) -> [UploadedFile] { files.filter { $0.field == name } }

    /// Reads the form of `request`; `expectedCSRF` is the token the form must repeat, when the middleware left it to
    /// us.
    static func read(_ request: Request, limits: UploadLimits, expectedCSRF: String?) async throws -> UploadForm {
        guard let boundary = request.multipartBoundary else {
            throw AppError.malformed("The upload is not multipart/form-data with a boundary.")
        }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limits.maxBodyBytes {
            throw AppError.uploadTooLarge(limits)
        }
        let collector = PartCollector(limits: limits, expectedCSRF: expectedCSRF)
        var reader = MultipartReader(boundary: boundary)
        var received = 0
        for try await buffer in request.body {
            received += buffer.readableBytes
            guard received <= limits.maxBodyBytes else { throw AppError.uploadTooLarge(limits) }
            do {
                try reader.feed(buffer.readableBytesView) { event in
                    switch event {
                    case .header(let name, let value): collector.header(name: name, value: value)
                    case .body(let bytes): collector.body(bytes)
                    case .partComplete: collector.completePart()
                    }
                }
            } catch {
                throw AppError.malformed("The multipart body is malformed.")
            }
            if let refusal = collector.refusal { throw refusal }
        }
        return try collector.finish()
    }
}

/// Collects the parts the multipart parser reports; the parser's callbacks cannot throw, so the first refusal is kept
/// and everything after it ignored.
private final class PartCollector {
    let limits: UploadLimits
    let expectedCSRF: String?
    var form = UploadForm()
    var refusal: AppError?
    private var headers: [(String, String)] = []
    private var bytes: [UInt8] = []
    private var inPart = false
    private var partKind: PartKind?
    private var fieldBytes = 0
    private var completedParts = 0

    private enum PartKind {
        case field(String)
        case file(name: String, limit: FileFieldLimit)
        case ignored
    }

    /// The form field of the part being read.
    private var fieldName = ""

    init(limits: UploadLimits, expectedCSRF: String?) {
        self.limits = limits
        self.expectedCSRF = expectedCSRF
    }

    func header(name: String, value: String) {
        inPart = true
        headers.append((name.lowercased(), value))
    }

    func body(_ buffer: ArraySlice<UInt8>) {
        guard refusal == nil else { return }
        inPart = true
        let kind = partKind ?? classify()
        partKind = kind
        switch kind {
        case .field:
            fieldBytes += buffer.count
            guard fieldBytes <= limits.maxFieldBytes else { return refuse(.uploadTooLarge(limits)) }
        case .file(_, let limit):
            guard bytes.count + buffer.count <= limit.maxFileBytes else {
                return refuse(.uploadTooLarge(limits, field: limit))
            }
        case .ignored:
            return
        }
        bytes.append(contentsOf: buffer)
    }

    func completePart() {
        guard refusal == nil else { return }
        let kind = partKind ?? classify()
        switch kind {
        case .field(let name):
            form.fields[name, default: []].append(String(decoding: bytes, as: UTF8.self))
        case .file(let name, _):
            form.files.append(UploadedFile(field: fieldName, fileName: name, bytes: bytes))
        case .ignored:
            break
        }
        headers.removeAll()
        bytes.removeAll()
        partKind = nil
        inPart = false
        completedParts += 1
    }

    /// The form once the body has ended; a body cut short (a part never closed, or no part at all) is malformed.
    func finish() throws -> UploadForm {
        if let refusal { throw refusal }
        guard !inPart, completedParts > 0 else {
            throw AppError.malformed("The multipart body ended too early or has no parts.")
        }
        if expectedCSRF != nil, !csrfMatches { throw AppError.csrf }
        return form
    }

    /// What the part whose headers were just read is: a text field, an image, or an empty file input (ignored).
    private func classify() -> PartKind {
        guard let value = headers.first(where: { $0.0 == "content-disposition" })?.1 else {
            refuse(.malformed("A part of the upload has no Content-Disposition."))
            return .ignored
        }
        let disposition = ContentDisposition(value)
        fieldName = disposition.name ?? ""
        guard let fileName = disposition.fileName else { return .field(fieldName) }
        guard let limit = limits.fileLimit(fieldName) else {
            let names = ([limits.fileField] + limits.otherFileFields.keys.sorted()).map { "“\($0)”" }
            refuse(.malformed("Only \(names.joined(separator: " and ")) files can be uploaded here."))
            return .ignored
        }
        if expectedCSRF != nil, !csrfMatches {
            refuse(.csrf)
            return .ignored
        }
        if fileName.isEmpty { return .ignored }  // a file input left empty
        guard form.files.count(where: { $0.field == fieldName }) < limit.maxFiles else {
            refuse(tooManyFiles(fieldName))
            return .ignored
        }
        return .file(name: fileName, limit: limit)
    }

    /// The refusal of one file too many in `field`.
    private func tooManyFiles(_ field: String) -> AppError {
        switch field {
        case "image": AppError(ChatError.tooManyImages)
        case "document":
            AppError(
                .unprocessableContent, code: "too_many_documents",
                message: "At most \(ChatService.maxDocumentsPerMessage) documents can be uploaded at once.")
        default: AppError(.unprocessableContent, code: "too_many_files", message: "Send one file at a time.")
        }
    }

    private var csrfMatches: Bool {
        guard let expectedCSRF, let sent = form[CSRFMiddleware.fieldName] else { return false }
        return CSRFTokenMask.matches(sent, token: expectedCSRF)
    }

    private func refuse(_ error: AppError) {
        if refusal == nil { refusal = error }
    }
}

extension Request {
    /// The boundary of a `multipart/form-data` body, if this is one.
    var multipartBoundary: String? {
        guard let type = headers[.contentType], type.lowercased().hasPrefix("multipart/form-data") else { return nil }
        for parameter in type.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else {
                continue
            }
            let boundary = pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(
                in: CharacterSet(charactersIn: "\""))
            return boundary.isEmpty || boundary.count > 70 ? nil : boundary
        }
        return nil
    }
}

extension AppError {
    /// A 413 naming the limits (of `field`, when a file of it is too large).
    static func uploadTooLarge(_ limits: UploadLimits, field: FileFieldLimit? = nil) -> AppError {
        let limit = field ?? FileFieldLimit(maxFileBytes: limits.maxFileBytes, maxFiles: limits.maxFiles)
        return AppError(
            .contentTooLarge, code: "upload_too_large",
            message: "A file can be at most \(limit.maxFileBytes / (1024 * 1024)) MB"
                + (limit.maxFiles > 1 ? ", and \(limit.maxFiles) can be sent at once." : "."))
    }
}
