import Hummingbird
import ParleyCore

/// A message as a browser sends it: a URL-encoded form, or a multipart one with images (checked by their bytes) and
/// documents (files, and ids of documents uploaded before).
struct MessageForm: Sendable {
    var content: String
    var model: String?
    var requestID: String?
    /// The question this message is a new version of.
    var editOf: MessageID?
    var images: [NewImage]
    /// Documents sent as files with the message, read before it is sent.
    var documentFiles: [UploadedFile] = []
    /// Documents uploaded to the conversation before (`document_id`, repeated).
    var documentIDs: [DocumentID] = []

    /// Reads the form of `request`; images that are not acceptable are refused with 415 (or 422 for their size).
    static func read(_ request: Request, context: AppRequestContext, limits: UploadLimits) async throws -> MessageForm {
        if request.multipartBoundary != nil {
            let form = try await UploadForm.read(request, limits: limits, expectedCSRF: context.csrfTokenForUploadForm)
            let images = try form.files(named: "image").map { file throws(AppError) in try NewImage(uploaded: file) }
            let documentIDs = try form.values(named: "document_id").map { text throws(AppError) in
                guard let id = DocumentID(text), id > 0 else { throw AppError.malformed("document_id must be an id.") }
                return id
            }
            var editOf: MessageID?
            if let text = form["edit_of"], !text.isEmpty {
                guard let id = MessageID(text), id > 0 else {
                    throw AppError.malformed("edit_of must be a message id.")
                }
                editOf = id
            }
            return MessageForm(
                content: form["content"] ?? "", model: form["model"], requestID: form["request_id"], editOf: editOf,
                images: images, documentFiles: form.files(named: "document"), documentIDs: documentIDs)
        }
        let form = try await request.decode(as: Fields.self, context: context)
        return MessageForm(
            content: form.content ?? "", model: form.model, requestID: form.requestID, editOf: form.editOf, images: [])
    }

    /// The fields of a message sent without images.
    struct Fields: Decodable {
        var content: String?
        var model: String?
        var requestID: String?
        /// The question a sent message is a new version of; the reply a regeneration writes again.
        var editOf: MessageID?
        var messageID: MessageID?

        enum CodingKeys: String, CodingKey {
            case content, model
            case requestID = "request_id"
            case editOf = "edit_of"
            case messageID = "message_id"
        }
    }
}

extension NewImage {
    /// Checks an uploaded file as an image.
    init(uploaded file: UploadedFile) throws(AppError) {
        do {
            try self.init(fileName: file.fileName, bytes: file.bytes)
        } catch {
            switch error {
            case .unsupported:
                throw AppError(
                    .unsupportedMediaType, code: "unsupported_image",
                    message: "“\(file.fileName)” is not a PNG, JPEG, WebP or GIF image.")
            case .malformed:
                throw AppError(
                    .unsupportedMediaType, code: "unsupported_image",
                    message: "“\(file.fileName)” is not a complete image: it may be damaged or cut short.")
            case .tooLarge(let width, let height):
                throw AppError(
                    .unprocessableContent, code: "image_dimensions_too_large",
                    message:
                        "“\(file.fileName)” is \(width)×\(height) pixels; at most \(ImageInspector.maxSide) a side is accepted."
                )
            }
        }
    }
}
