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

    /// Reads the multipart form and hands each of its documents to the intake, into collection `id` of the user's
    /// (which the caller found first); 415 for a body that is not multipart, 422 for one without documents.
    func receive(_ request: Request, context: AppRequestContext, into id: CollectionID, userID: UserID)
        async throws -> Outcome
    {
        let files = try await DocumentForm.files(of: request, context: context, limit: limit)
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
