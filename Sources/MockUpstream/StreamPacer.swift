import ServiceLifecycle
import Synchronization

/// Wakes the mock's streams at their tokens' due instants with one timer for all of them: every stream whose instant
/// has come resumes at the same tick, so a thousand streams cost one wake-up a millisecond instead of a timer each.
/// Runs as a service of the mock's application, stopping after the HTTP server (which stops first) has served its
/// streams; a stream that sleeps once it has stopped gets `CancellationError`.
final class StreamPacer: Service {
    /// The gap between ticks: how late past its instant a stream may wake.
    static var tick: Duration { .nanoseconds(tickNanoseconds) }
    private static var tickNanoseconds: Int64 { 1_000_000 }

    private struct State {
        /// Sleeping streams by id.
        var sleepers: [Int: CheckedContinuation<Void, any Error>] = [:]
        /// Ids of sleepers by the tick they wake at (a cancelled sleeper's id stays until its tick, then is passed
        /// over).
        var wakingAt: [Int64: [Int]] = [:]
        var nextID = 0
        /// The ticker, parked while nobody sleeps.
        var parkedTicker: CheckedContinuation<Void, Never>?
        var isStopped = false
    }

    private let state = Mutex(State())
    private let clock = ContinuousClock()
    private let origin: ContinuousClock.Instant

    /// Creates a pacer; it ticks once `run()` runs.
    init() {
        origin = clock.now
    }

    /// Suspends until the first tick at or after `due`; throws `CancellationError` when the caller is cancelled (at
    /// once) or the pacer has stopped.
    func sleep(until due: ContinuousClock.Instant) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let tick = ticks(at: due, roundingUp: true)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // The cancellation flag is set before the handler below runs, so a cancellation either is seen here
                // or finds the sleeper registered.
                let (registered, ticker) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
                    guard !state.isStopped, !Task.isCancelled else { return (false, nil) }
                    state.sleepers[id] = continuation
                    state.wakingAt[tick, default: []].append(id)
                    defer { state.parkedTicker = nil }
                    return (true, state.parkedTicker)
                }
                if !registered { continuation.resume(throwing: CancellationError()) }
                ticker?.resume()
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }

    /// Ticks until a graceful shutdown or cancellation, then wakes every sleeper with `CancellationError`.
    func run() async {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await self.parkWhileNobodySleeps()
                do { try await Task.sleep(for: Self.tick) } catch { break }
                self.wakeDue()
            }
        }
        let sleepers = state.withLock { state in
            state.isStopped = true
            defer { state.sleepers = [:] }
            return Array(state.sleepers.values)
        }
        for sleeper in sleepers { sleeper.resume(throwing: CancellationError()) }
    }

    /// Resumes the sleepers whose tick has come.
    private func wakeDue() {
        let now = ticks(at: clock.now, roundingUp: false)
        let due = state.withLock { state in
            var due: [CheckedContinuation<Void, any Error>] = []
            for tick in state.wakingAt.keys where tick <= now {
                for id in state.wakingAt.removeValue(forKey: tick) ?? [] {
                    if let sleeper = state.sleepers.removeValue(forKey: id) { due.append(sleeper) }
                }
            }
            return due
        }
        for sleeper in due { sleeper.resume() }
    }

    /// Returns at once when someone sleeps, else when the next one arrives (or the task is cancelled).
    private func parkWhileNobodySleeps() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (ticker: CheckedContinuation<Void, Never>) in
                let parked = state.withLock { state in
                    guard state.sleepers.isEmpty, !Task.isCancelled else { return false }
                    state.parkedTicker = ticker
                    return true
                }
                if !parked { ticker.resume() }
            }
        } onCancel: {
            state.withLock { state in
                defer { state.parkedTicker = nil }
                return state.parkedTicker
            }?.resume()
        }
    }

    /// Whole ticks from the pacer's origin to `instant`.
    private func ticks(at instant: ContinuousClock.Instant, roundingUp: Bool) -> Int64 {
        let (seconds, attoseconds) = origin.duration(to: instant).components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        let (whole, rest) = nanoseconds.quotientAndRemainder(dividingBy: Self.tickNanoseconds)
        return whole + (roundingUp && rest > 0 ? 1 : 0)
    }
}
