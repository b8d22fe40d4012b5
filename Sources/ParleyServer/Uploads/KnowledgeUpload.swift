import Hummingbird
import ParleyCore
import ParleyDocuments

/// Documents uploaded into a knowledge collection (`document` ×N of a multipart form): each one checked and stored by
/// the intake, which reads it off the request path, or refused with the status its reason has.
struct KnowledgeUpload: Sendable {
    let intake: DocumentIntake
    /// How many documents one upload may carry, and how large each (`PARLEY_MAX_DOCUMENT_MB`).
    let limit: FileFieldLimit

    /// What an upload gave: the documents taken (`reading`), and each one refused with its name and refusal.
    struct Outcome {
        var accepted: [Document] = []
        var refused: [(name: String, error: AppError)] = []
    }

    /// The upload's limits: `document` files only, within `limit`.
    var limits: UploadLimits {
        UploadLimits(fileField: "document", maxFileBytes: limit.maxFileBytes, maxFiles: limit.maxFiles)
    }

    /// Reads the multipart form and hands each of its documents to the intake, into collection `id` of the user's
    /// (which the caller found first); 415 for a body that is not multipart, 422 for one without documents.
    func receive(_ request: Request, context: AppRequestContext, into id: CollectionID, userID: UserID)
        async throws -> Outcome
    {
        guard request.multipartBoundary != nil else {
            throw AppError(
                .unsupportedMediaType, code: "unsupported_media_type",
                message: "Send documents as multipart/form-data, in “document” fields.")
        }
        let form = try await UploadForm.read(request, limits: limits, expectedCSRF: context.csrfTokenForUploadForm)
        let files = form.files(named: "document")
        guard !files.isEmpty else {
            throw AppError(.unprocessableContent, code: "no_documents", message: "Choose at least one document.")
        }
        var outcome = Outcome()
        for file in files {
            do {
                outcome.accepted.append(
                    try await intake.accept(
                        name: file.fileName, bytes: file.bytes, place: .collection(id), userID: userID))
            } catch {
                outcome.refused.append((file.fileName, AppError(error, name: file.fileName)))
            }
        }
        return outcome
    }
}
