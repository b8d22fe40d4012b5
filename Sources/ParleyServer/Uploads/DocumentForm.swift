import Hummingbird
import ParleyCore

/// A form that uploads documents: `multipart/form-data` with `document` files only, each within the limit.
enum DocumentForm {
    /// The `document` files of `request`: 415 for a body that is not multipart, 422 for one without documents.
    static func files(of request: Request, context: AppRequestContext, limit: FileFieldLimit) async throws
        -> [UploadedFile]
    {
        guard request.multipartBoundary != nil else {
            throw AppError(
                .unsupportedMediaType, code: "unsupported_media_type",
                message: "Send documents as multipart/form-data, in “document” fields.")
        }
        let limits = UploadLimits(fileField: "document", maxFileBytes: limit.maxFileBytes, maxFiles: limit.maxFiles)
        let files = try await UploadForm.read(request, limits: limits, expectedCSRF: context.csrfTokenForUploadForm)
            .files(named: "document")
        guard !files.isEmpty else {
            throw AppError(.unprocessableContent, code: "no_documents", message: "Choose at least one document.")
        }
        return files
    }
}
