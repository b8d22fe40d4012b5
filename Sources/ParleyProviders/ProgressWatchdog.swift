import ParleyCore
import Synchronization

/// Runs an upstream exchange against deadlines: its first progress must come within `first` of the start,
/// and every later one within `between` of the one before; otherwise the exchange is cancelled with `.timedOut`.
struct ProgressWatchdog: Sendable {
    let first: Duration
    let between: Duration

    /// Runs `operation` in a child task, handing it the progress it marks; cancelling the caller cancels it too.
    func run<Result: Sendable>(_ operation: @escaping @Sendable (ExchangeProgress) async throws -> Result) async throws -> Result {
        let progress = ExchangeProgress()
        return try await withThrowingTaskGroup(of: Result.self) { group in
            group.addTask { try await operation(progress) }
            group.addTask { try await expire(progress) }
            defer { group.cancelAll() }
            // The watchdog never returns, so the first child to end is the operation, or a failure of either.
            guard let result = try await group.next() else { throw CancellationError() }
            return result
        }
    }

    /// Sleeps until the current deadline; throws `.timedOut` once one passes without progress. Before the first
    /// progress it wakes at least every `between`, since a first mark may bring the deadline forward.
    private func expire(_ progress: ExchangeProgress) async throws -> Never {
        let start = ContinuousClock.now
        while true {
            let now = ContinuousClock.now
            let last = progress.lastMark
            let deadline = last.map { $0 + between } ?? start + first
            guard now < deadline else { throw ProviderError.timedOut }
            try await Task.sleep(until: last == nil ? min(deadline, now + between) : deadline, clock: .continuous)
        }
    }
}

/// When a watched exchange last made progress; marked by the exchange, read by its watchdog.
final class ExchangeProgress: Sendable {
    private let last = Mutex<ContinuousClock.Instant?>(nil)

    /// Records progress now.
    func mark() {
        let now = ContinuousClock.now
        last.withLock { $0 = now }
    }

    /// The last progress, if any.
    var lastMark: ContinuousClock.Instant? { last.withLock { $0 } }
}
