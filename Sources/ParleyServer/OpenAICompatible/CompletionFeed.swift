import ParleyCore
import Synchronization

/// Hands a streaming completion's text from the provider's network thread to the response writer: text gathers here
/// until the writer takes it, so a writer that is busy writing takes what came meanwhile in one chunk.
final class CompletionFeed: Sendable {
    /// What came since the writer last took: text, reasoning, and the completion once it ended.
    struct Batch: Sendable {
        var text = ""
        var reasoning = ""
        var end: APICompletion?

        var isEmpty: Bool { text.isEmpty && reasoning.isEmpty && end == nil }
    }

    private struct State {
        var batch = Batch()
        var waiter: CheckedContinuation<Batch, Never>?
    }

    private let state = Mutex(State())

    /// Adds text or reasoning (other chunks carry nothing for the writer).
    func add(_ chunk: CompletionChunk) {
        deliver { batch in
            switch chunk {
            case .text(let text): batch.text += text
            case .reasoning(let text): batch.reasoning += text
            case .usage, .cutAtLimit, .toolCall: break
            }
        }
    }

    /// Adds the completion's end; the batch that carries it is the last.
    func finish(_ completion: APICompletion) {
        deliver { $0.end = completion }
    }

    /// Waits for what came since the last call (at once when something has).
    func next() async -> Batch {
        await withCheckedContinuation { continuation in
            let ready: Batch? = state.withLock { state in
                guard !state.batch.isEmpty else {
                    state.waiter = continuation
                    return nil
                }
                defer { state.batch = Batch() }
                return state.batch
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Changes the batch, and hands it to a waiting writer.
    private func deliver(_ change: (inout Batch) -> Void) {
        let handed: (CheckedContinuation<Batch, Never>, Batch)? = state.withLock { state in
            change(&state.batch)
            guard let waiter = state.waiter, !state.batch.isEmpty else { return nil }
            defer {
                state.waiter = nil
                state.batch = Batch()
            }
            return (waiter, state.batch)
        }
        if let (waiter, batch) = handed { waiter.resume(returning: batch) }
    }
}
