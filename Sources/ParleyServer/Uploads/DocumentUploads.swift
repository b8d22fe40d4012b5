import ParleyCore
import ParleyDocuments

/// Turns the documents of a request into stored ones: uploaded files through the intake, and ids of documents uploaded
/// before, checked to be the user's, waiting in the conversation and read.
struct DocumentUploads {
    let intake: DocumentIntake
    let documents: any DocumentStore

    /// Stores `files` in `place`, in order; with `waiting`, waits until each is read and refuses one that could not be
    /// (422 naming it). A refusal deletes what this call stored.
    func accept(_ files: [UploadedFile], place: DocumentPlace, userID: UserID, waiting: Bool) async throws(AppError)
        -> [Document]
    {
        var stored: [Document] = []
        do throws(AppError) {
            for file in files {
                let document: Document
                do {
                    document =
                        waiting
                        ? try await intake.acceptAndRead(
                            name: file.fileName, bytes: file.bytes, place: place, userID: userID)
                        : try await intake.accept(name: file.fileName, bytes: file.bytes, place: place, userID: userID)
                } catch {
                    throw AppError(error, name: file.fileName)
                }
                stored.append(document)
                if waiting, document.status != .ready { throw AppError.unreadable(document) }
            }
            return stored
        } catch {
            await discard(stored, userID: userID)
            throw error
        }
    }

    /// Runs `send` with the ids of a message's documents: those uploaded before (`ids`), which must each be the
    /// user's, read and waiting in the conversation, then its `files`, stored and read now. When `send` fails, the
    /// files' documents are deleted again.
    func sending<T>(
        files: [UploadedFile], ids: [DocumentID], conversationID: ConversationID, userID: UserID,
        _ send: ([DocumentID]) async throws -> T
    ) async throws -> T {
        guard !files.isEmpty || !ids.isEmpty else { return try await send([]) }
        let uploaded = try await forMessage(files: files, ids: ids, conversationID: conversationID, userID: userID)
        do {
            return try await send(ids + uploaded.map(\.id))
        } catch {
            await discard(uploaded, userID: userID)
            throw error
        }
    }

    /// Checks `ids` and stores and reads `files` (see `sending`); returns the files' documents.
    private func forMessage(files: [UploadedFile], ids: [DocumentID], conversationID: ConversationID, userID: UserID)
        async throws(AppError) -> [Document]
    {
        guard files.count + ids.count <= ChatService.maxDocumentsPerMessage else {
            throw AppError(ChatError.tooManyDocuments)
        }
        for id in ids {
            let document: Document?
            do {
                document = try await documents.document(id: id, userID: userID)
            } catch {
                throw AppError(mapping: error) ?? .internalError
            }
            guard let document, document.place == .conversation(conversationID), document.messageID == nil else {
                throw AppError(
                    ChatError.documentNotReady("Document \(id) is not waiting to be sent in this conversation."))
            }
            switch document.status {
            case .ready: continue
            case .reading:
                throw AppError(
                    ChatError.documentNotReady("“\(document.name)” is still being read. Send it once it is."))
            case .failed: throw AppError.unreadable(document)
            }
        }
        return try await accept(files, place: .conversation(conversationID), userID: userID, waiting: true)
    }

    /// Deletes documents stored for a request that was then refused.
    func discard(_ stored: [Document], userID: UserID) async {
        for document in stored { try? await documents.deleteDocument(id: document.id, userID: userID) }
    }
}
