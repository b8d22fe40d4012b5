import Dispatch
import Synchronization

/// A one-way signal: once opened it stays open; any number of tasks wait for it, and a waiting task that is cancelled
/// stops waiting at once.
final class Latch: Sendable {
    private struct State {
        var isOpen = false
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    /// Whether it was opened.
    var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Opens it, releasing every waiter.
    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once it is open, or once the task is cancelled.
    func wait() async {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state in
                    guard !state.isOpen, !Task.isCancelled else { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Whether it opens within `duration`, watched in 20 steps that a cancelled task waits too (a grace period after
    /// a cancellation is still a wait).
    func opens(within duration: Duration) async -> Bool {
        let milliseconds = Int(
            duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000)
        for _ in 0..<20 where !isOpen {
            await withCheckedContinuation { continuation in
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds / 20)) {
                    continuation.resume()
                }
            }
        }
        return isOpen
    }
}
