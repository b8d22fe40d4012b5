import ParleyMarkdown
import Synchronization

/// Why a running reply was ended early.
enum StopCause: Sendable {
    /// The user pressed Stop.
    case user
    /// The server is shutting down.
    case shutdown
}

/// One running reply: its text so far, its paced markdown HTML, and the task that streams it.
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
        var stopCause: StopCause?
        var estimatedPromptTokens = 0
        var streaming: Task<StreamEnd, Never>?
        var hasText = false
        /// The fallback model answering instead of the job's, if the job's failed.
        var model: ModelInfo?
    }

    let job: GenerationJob
    let state = Mutex(State())
    let startedAt = ContinuousClock.now

    /// Creates the state of a reply that is about to stream.
    init(job: GenerationJob) {
        self.job = job
    }

    /// The next event id of this reply.
    func nextEventID(_ state: inout State) -> EventID {
        state.sequence += 1
        return EventID(messageID: job.assistantMessageID, sequence: state.sequence)
    }

    /// Records new text; the first of the reply is timed. Returns whether it was the first.
    func receive(_ text: String) -> Bool {
        let isFirst = state.withLock { state in
            defer { state.hasText = true }
            state.text += text
            state.unsent += text
            state.markdown.append(text)
            return !state.hasText
        }
        if isFirst { GenerationMetrics.firstToken(model: job.model.id, after: startedAt.duration(to: .now)) }
        return isFirst
    }

    /// Asks the streaming task to end, remembering why.
    func stop(_ cause: StopCause) {
        let task = state.withLock { state in
            if state.stopCause == nil { state.stopCause = cause }
            return state.streaming
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
