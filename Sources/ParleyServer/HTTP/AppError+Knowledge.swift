import ParleyCore

extension AppError {
    /// The HTTP form of a knowledge collection action's refusal: what the caller got wrong is a 422 with its code.
    init(_ error: KnowledgeError) {
        switch error {
        case .notFound: self = .notFound
        case .invalid(let problem): self.init(.unprocessableContent, code: "invalid_collection", message: problem)
        case .unknownCollections(let ids):
            self.init(
                .unprocessableContent, code: "unknown_collection",
                message: "Only your own knowledge collections can be attached (an assistant's: its author's); "
                    + "not \(ids.prefix(5).map { "#\($0)" }.joined(separator: ", ")).")
        case .diskFull: self = .diskFull
        case .storage: self = .internalError
        }
    }
}
