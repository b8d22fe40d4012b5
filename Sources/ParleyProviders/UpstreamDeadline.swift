import ParleyCore

/// A time limit on a whole upstream exchange (listing models, drawing an image): past it, the exchange is
/// cancelled and `.timedOut` thrown. Streamed replies have their own token deadlines (`UpstreamStreamDelegate`).
struct UpstreamDeadline: Sendable {
    let limit: Duration

    /// Runs `operation` in a child task, cancelled when the limit passes or the caller is cancelled.
    func run<Result: Sendable>(_ operation: @escaping @Sendable () async throws -> Result) async throws -> Result {
        try await withThrowingTaskGroup(of: Result.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(for: limit)
                throw ProviderError.timedOut
            }
            defer { group.cancelAll() }
            // The timer never returns a result, so the first child to end is the operation, or a failure of either.
            guard let result = try await group.next() else { throw CancellationError() }
            return result
        }
    }
}
