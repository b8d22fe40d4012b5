import ParleyCore

/// Runs a chat action, turning its refusal into the HTTP error it is shown as.
func chatCall<T>(_ action: () async throws(ChatError) -> T) async throws(AppError) -> T {
    do {
        return try await action()
    } catch {
        throw AppError(error)
    }
}

/// Runs a share action, turning its refusal into the HTTP error it is shown as.
func shareCall<T>(_ action: () async throws(ShareError) -> T) async throws(AppError) -> T {
    do {
        return try await action()
    } catch {
        throw AppError(error)
    }
}
