import ParleyCore

extension AppError {
    /// The HTTP form of a share action's refusal.
    init(_ error: ShareError) {
        switch error {
        case .notFound: self = .notFound
        case .diskFull: self = .diskFull
        case .storageFull(let status): self = .storageFull(status)
        case .storage: self = .internalError
        }
    }
}
