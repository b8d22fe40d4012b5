/// Runs an operation against a clock, an optional latch and the task's cancellation, for operations that do not end by
/// themselves when cancelled (an MCP request waits for the server's answer): when time is up, the latch opens (the
/// server went away) or the task is cancelled, `interrupt` must make the operation end, and it is awaited.
enum Deadline {
    /// How a run ended.
    enum Outcome<T: Sendable>: Sendable {
        case finished(T)
        /// The limit passed, the latch opened or the task was cancelled (see `Task.isCancelled`), and the operation
        /// was interrupted.
        case interrupted
    }

    /// How long an interrupted operation may take to end before `interrupt` is called once more: the MCP SDK
    /// registers a request a moment after sending it, so an interrupt just before that finds nothing to end.
    static let grace = Duration.seconds(2)

    /// Runs `operation` for at most `limit`, and no longer than `stop` stays closed.
    static func run<T: Sendable>(
        _ limit: Duration, stop: Latch? = nil, _ operation: @escaping @Sendable () async -> T,
        interrupt: () async -> Void
    ) async -> Outcome<T> {
        let ended = Latch()
        return await withTaskGroup(of: Outcome<T>?.self) { group in
            group.addTask {
                defer { ended.open() }
                return .finished(await operation())
            }
            group.addTask {
                await withTaskGroup(of: Void.self) { clock in
                    clock.addTask { try? await Task.sleep(for: limit) }
                    if let stop { clock.addTask { await stop.wait() } }
                    await clock.next()
                    clock.cancelAll()
                }
                return nil
            }
            if case .some(.some(let outcome)) = await group.next() {
                group.cancelAll()
                return outcome
            }
            await interrupt()
            if await !ended.opens(within: grace) { await interrupt() }
            await group.waitForAll()
            return .interrupted
        }
    }

}
