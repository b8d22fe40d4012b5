import ParleyCore
import Synchronization

/// The most conversation event streams one user may hold open at once: past it, a new stream is refused (429) rather
/// than an open one closed, because a closed stream's browser reconnects within a second and would close another.
final class EventStreamLimit: Sendable {
    let maximum: Int
    private let open = Mutex<[UserID: Int]>([:])

    /// A limit of `maximum` streams per user.
    init(maximum: Int) {
        self.maximum = maximum
    }

    /// Counts a new stream of `user`; false (counting nothing) when the user already holds `maximum`.
    func acquire(_ user: UserID) -> Bool {
        open.withLock { open in
            guard open[user, default: 0] < maximum else { return false }
            open[user, default: 0] += 1
            return true
        }
    }

    /// Uncounts a stream of `user` that has ended.
    func release(_ user: UserID) {
        open.withLock { open in
            let remaining = open[user, default: 0] - 1
            open[user] = remaining > 0 ? remaining : nil
        }
    }
}
