import ParleyMarkdown
import Synchronization

/// Why a running reply was ended early.
enum StopCause: Sendable {
    /// The user pressed Stop.
    case user
    /// The server is shutting down.
    case shutdown
}

/// One running reply: its text so far, its paced markdown HTML, and the task that runs it.
final class Generation: Sendable {
    /// The mutable part, guarded by the generation's lock.
    struct State {
        var text = ""
        var unsent = ""
        var markdown = MarkdownStream()
        var sequence: Int64 = 0
        var lastTokenEvent: ContinuousClock.Instant?
        var savedLength = 0
        var providerUsage: Usage?
        /// The provider ended the reply at its output limit.
        var isCutAtLimit = false
        var stopCause: StopCause?
        var estimatedPromptTokens = 0
        /// The reply's task until its stream has ended (Stop cancels it).
        var task: Task<Void, Never>?
        /// Whether the stream has ended: a task handle known only after that (its task ran at once, `Task.immediate`,
        /// to its end of streaming) is not kept, since a Stop would have nothing left to close.
        var isStreamOver = false
        var hasText = false
        /// The fallback model answering instead of the job's, if the job's failed.
        var model: ModelInfo?
        /// The conversation the reply answers, until the upstream request is built from it.
        var history: [HistoryMessage] = []
        /// Whether the reply's request is with the provider's client (or the reply ended without one, or is drawn).
        var isUnderway = false
        /// Who waits for the reply to be underway.
        var underwayWaiter: CheckedContinuation<Void, Never>?
        /// When the reply's (first) request was handed to the provider's client, and when its first text came.
        var requestLeftAt: ContinuousClock.Instant?
        var firstTextAt: ContinuousClock.Instant?
        /// The sequence of the `token` event carrying the first text, once it is in the log.
        var firstTokenSequence: Int64?
        /// Whether Parley's part of the first token has been recorded (by the first stream that wrote it).
        var isFirstTokenTimed = false
    }

    /// The job, without its history (which the state holds only until the reply takes it).
    let job: GenerationJob
    let state: Mutex<State>
    let startedAt = ContinuousClock.now
    /// When Parley received the request that started the reply.
    let receivedAt: ContinuousClock.Instant

    /// Creates the state of a reply that is about to stream, started by a request received at `receivedAt`.
    init(job: GenerationJob, receivedAt: ContinuousClock.Instant) {
        var job = job
        state = Mutex(State(history: job.history))
        job.history = []
        self.job = job
        self.receivedAt = receivedAt
    }

    /// The conversation the reply answers; later calls get nothing, since it is needed once and may be large.
    func takeHistory() -> [HistoryMessage] {
        state.withLock { state in
            defer { state.history = [] }
            return state.history
        }
    }

    /// Releases whoever started the reply: its request is with the provider's client, or the reply ended (or failed)
    /// before sending one, or an image model was asked to draw; idempotent.
    func markUnderway() {
        let waiter = state.withLock { state in
            defer { state.underwayWaiter = nil }
            state.isUnderway = true
            return state.underwayWaiter
        }
        waiter?.resume()
    }

    /// Returns once `markUnderway()` has been called (at once if it has been already).
    func waitUntilUnderway() async {
        await withCheckedContinuation { continuation in
            let isUnderway = state.withLock { state in
                if !state.isUnderway { state.underwayWaiter = continuation }
                return state.isUnderway
            }
            if isUnderway { continuation.resume() }
        }
    }

    /// The next event id of this reply.
    func nextEventID(_ state: inout State) -> EventID {
        state.sequence += 1
        return EventID(messageID: job.assistantMessageID, sequence: state.sequence)
    }

    /// Records new text; the first of the reply is timed. Returns whether it was the first.
    func receive(_ text: String) -> Bool {
        let now = ContinuousClock.now
        let isFirst = state.withLock { state in
            defer { state.hasText = true }
            if !state.hasText { state.firstTextAt = now }
            state.text += text
            state.unsent += text
            state.markdown.append(text)
            return !state.hasText
        }
        if isFirst { GenerationMetrics.firstToken(model: job.model.id, after: startedAt.duration(to: .now)) }
        return isFirst
    }

    /// Records that the reply's request has been handed to the provider's client (the first time: a retry's wait is the
    /// provider's), and releases whoever started the reply.
    func markRequestSent() {
        let now = ContinuousClock.now
        state.withLock { state in
            if state.requestLeftAt == nil { state.requestLeftAt = now }
        }
        markUnderway()
    }

    /// After a stream wrote the events up to `sequence` to its client: the first time they include the first text's
    /// `token` event, Parley's part of the first token, which leaves out the wait for the provider: from the request to
    /// the upstream request handed to the provider's client, plus from the first text's arrival to its event handed to
    /// the client's connection.
    func addedFirstTokenTime(wroteUpTo sequence: Int64) -> Duration? {
        let now = ContinuousClock.now
        return state.withLock { state in
            guard !state.isFirstTokenTimed, let first = state.firstTokenSequence, first <= sequence,
                  let textAt = state.firstTextAt else { return nil }
            state.isFirstTokenTimed = true
            let requestLeft = min(state.requestLeftAt ?? textAt, textAt)
            return receivedAt.duration(to: requestLeft) + textAt.duration(to: now)
        }
    }

    /// Asks the reply's task to end its stream, remembering why.
    func stop(_ cause: StopCause) {
        let task = state.withLock { state in
            if state.stopCause == nil { state.stopCause = cause }
            return state.task
        }
        task?.cancel()
    }

    /// Forgets that the text was saved, after a failed write, so the next flush tries again.
    func markUnsaved() {
        state.withLock { $0.savedLength = -1 }
    }

    /// The text not saved yet, marking it saved; nil when nothing changed.
    func takeUnsavedText() -> String? {
        state.withLock { state in
            guard state.text.utf8.count != state.savedLength else { return nil }
            state.savedLength = state.text.utf8.count
            return state.text
        }
    }
}
