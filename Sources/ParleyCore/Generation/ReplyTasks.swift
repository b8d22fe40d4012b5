import Synchronization

/// The task of every reply that has not ended, by its assistant message, so that a shutdown can wait for them all.
/// Once closed it takes no more: a reply that starts after its server began shutting down does not run.
/// Lock order: a reply's own lock (`ReplyRun`) may be held while calling in here, never the reverse.
final class ReplyTasks: Sendable {
    private struct State {
        /// Nil while a task is starting, before its handle is known.
        var tasks: [MessageID: Task<Void, Never>?] = [:]
        var isClosed = false
    }

    private let state = Mutex(State())

    /// Enters a reply whose task is about to start; returns false when closed.
    func enter(_ id: MessageID) -> Bool {
        state.withLock { state in
            guard !state.isClosed else { return false }
            state.tasks.updateValue(nil, forKey: id)
            return true
        }
    }

    /// Records a started reply's task, unless the reply has ended already.
    func record(_ task: Task<Void, Never>, of id: MessageID) {
        state.withLock { state in
            if state.tasks.keys.contains(id) { state.tasks.updateValue(task, forKey: id) }
        }
    }

    /// Removes a reply that has ended.
    func remove(_ id: MessageID) {
        state.withLock { _ = $0.tasks.removeValue(forKey: id) }
    }

    /// Takes no more replies.
    func close() {
        state.withLock { $0.isClosed = true }
    }

    /// The tasks of the replies not ended yet (nil for one still starting), or nil when there are none.
    var remaining: [Task<Void, Never>?]? {
        state.withLock { $0.tasks.isEmpty ? nil : Array($0.tasks.values) }
    }
}
