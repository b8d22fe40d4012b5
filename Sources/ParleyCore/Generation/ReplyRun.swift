import ParleyMarkdown
import Synchronization

/// Why a running reply was ended early.
enum StopCause: Sendable {
    /// The user pressed Stop.
    case user
    /// The server is shutting down.
    case shutdown
}

/// Where a reply is in its run; it only moves forward.
enum ReplyPhase: Int, Comparable, Sendable {
    /// Its request is being built from the conversation.
    case preparing
    /// Its starter has been released: the request is with the provider's client, or the reply ended before sending one,
    /// or an image model was asked to draw.
    case underway
    /// Text has come.
    case streaming
    /// Its stream is over: a Stop has nothing left to close, and the reply is being saved as it ended.
    case finishing

    static func < (lhs: ReplyPhase, rhs: ReplyPhase) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One running reply: its phase, its text and paced markdown, its reasoning, what the provider reported, its
/// first-token timing and the task that runs it. It owns its state behind its own lock and may call into the hub while
/// holding it (so that its events keep their order); the hub never calls into it.
final class ReplyRun: Sendable {
    /// The text and reasoning received, and the `token` and `reasoning` events made of them.
    struct Output {
        var text = ""
        /// Text received since the last `token` event.
        var unsent = ""
        var markdown = MarkdownStream()
        /// The model's reasoning, kept apart from the text (never rendered as the answer nor sent back as context).
        var reasoning = ""
        /// Reasoning received since the last `reasoning` event.
        var unsentReasoning = ""
        /// When the first reasoning came, and the first answer text after it, on the engine's clock: how long the
        /// model thought. Each is read once, so the per-token path reads no clock for it.
        var reasoningStartedAt: Duration?
        var reasoningEndedAt: Duration?
        /// The sequence of the reply's last event.
        var sequence: Int64 = 0
        /// When the last `token` or `reasoning` event went out, on the engine's clock.
        var lastTokenEvent: Duration?
        /// How many bytes of `text` and `reasoning` the last progress save wrote (-1 after a failed save); both only
        /// grow, so their sum changes whenever either does.
        var savedLength = 0

        /// Where in `text` the current model call's text starts (a reply with tools makes several calls).
        var stepStart: String.Index?

        /// Bytes of text and reasoning received.
        var length: Int { text.utf8.count + reasoning.utf8.count }

        /// The current model call's text.
        var stepText: Substring { text[(stepStart ?? text.startIndex)...] }
    }

    /// What the reply will be saved with, besides its text.
    struct Report {
        var providerUsage: Usage?
        /// The provider ended the reply at its output limit.
        var isCutAtLimit = false
        var estimatedPromptTokens = 0
        /// The tool calls the model asked for in the current step.
        var toolCalls: [ToolCall] = []
        /// The reply's tool calls so far, with how each went.
        var toolSteps: [ToolStep] = []
        /// The usage of the model calls before the current one (a reply with tools makes several).
        var earlierUsage = Usage()
        /// The numbered passages of documents the reply was given, and their estimated tokens.
        var sources: [DocumentSource] = []
        var documentTokens = 0
        /// The fallback model answering instead of the job's, if the job's failed.
        var model: ModelInfo?
    }

    /// What Parley's own part of the first token is timed from: the first text a reader sees, reasoning or answer.
    struct FirstTokenTiming {
        /// When the reply's (first) request was handed to the provider's client, and when its first text came.
        var requestLeftAt: ContinuousClock.Instant?
        var firstTextAt: ContinuousClock.Instant?
        /// The sequence of the `reasoning` or `token` event carrying the first text, once it is in the log.
        var firstTokenSequence: Int64?
        /// Whether it has been recorded (by the first stream that wrote that event).
        var isRecorded = false
    }

    private struct State {
        var phase = ReplyPhase.preparing
        /// The conversation the reply answers, until the request is built from it.
        var history: [HistoryMessage]
        var output = Output()
        var report = Report()
        var timing = FirstTokenTiming()
        var stopCause: StopCause?
        /// The reply's task until its stream is over (Stop cancels it).
        var task: Task<Void, Never>?
        /// Who waits for the reply to be underway.
        var underwayWaiter: CheckedContinuation<Void, Never>?
        /// The tool calls waiting for the user's answer, by call id.
        var decisions: [String: CheckedContinuation<Bool, Never>] = [:]
    }

    /// The job, without its history (which the state holds only until the reply takes it).
    let job: GenerationJob
    /// The engine's clock, which times the reasoning.
    let clock: EngineClock
    private let state: Mutex<State>
    let startedAt = ContinuousClock.now
    /// When Parley received the request that started the reply.
    let receivedAt: ContinuousClock.Instant

    /// Creates the state of a reply that is about to run, started by a request received at `receivedAt`; its
    /// reasoning is timed by `clock`.
    init(job: GenerationJob, receivedAt: ContinuousClock.Instant, clock: EngineClock = .continuous) {
        var job = job
        state = Mutex(State(history: job.history))
        job.history = []
        self.job = job
        self.receivedAt = receivedAt
        self.clock = clock
    }

    // MARK: Phases

    /// The conversation the reply answers; later calls get nothing, since it is needed once and may be large.
    func takeHistory() -> [HistoryMessage] {
        state.withLock { state in
            defer { state.history = [] }
            return state.history
        }
    }

    /// Releases whoever started the reply; idempotent.
    func markUnderway() {
        let waiter = state.withLock { state in
            defer { state.underwayWaiter = nil }
            state.phase = max(state.phase, .underway)
            return state.underwayWaiter
        }
        waiter?.resume()
    }

    /// Returns once the reply is underway (at once if it is already).
    func waitUntilUnderway() async {
        await withCheckedContinuation { continuation in
            let isUnderway = state.withLock { state in
                if state.phase < .underway { state.underwayWaiter = continuation }
                return state.phase >= .underway
            }
            if isUnderway { continuation.resume() }
        }
    }

    /// Records that the reply's request has been handed to the provider's client (the first time: a retry's wait is the
    /// provider's), and releases whoever started the reply.
    func markRequestSent() {
        let now = ContinuousClock.now
        state.withLock { state in
            if state.timing.requestLeftAt == nil { state.timing.requestLeftAt = now }
        }
        markUnderway()
    }

    /// Whether text or reasoning has come (a retry would show it twice).
    var hasOutput: Bool { state.withLock { $0.output.length > 0 } }

    /// Marks the stream over: a Stop from now on has nothing left to close.
    func markStreamOver() {
        state.withLock { state in
            state.task = nil
            state.phase = .finishing
        }
    }

    /// Keeps the reply's task for Stop, unless its stream is over already; cancels it at once when a Stop came first.
    func attach(_ task: Task<Void, Never>) {
        state.withLock { state in
            guard state.phase < .finishing else { return }
            state.task = task
            if state.stopCause != nil { task.cancel() }
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

    /// Why the reply was stopped, if it was.
    var stopCause: StopCause? { state.withLock { $0.stopCause } }

    // MARK: Output

    /// Records new answer text; the reply's first text, reasoning or answer, is timed, and the first after reasoning
    /// ends the reasoning's time. Returns whether it was the first.
    func receive(_ text: String) -> Bool {
        receiveOutput { output in
            if output.reasoningStartedAt != nil, output.reasoningEndedAt == nil { output.reasoningEndedAt = clock.now }
            output.text += text
            output.unsent += text
            output.markdown.append(text)
        }
    }

    /// Records new reasoning, kept apart from the answer; the reply's first text, reasoning or answer, is timed, and
    /// the first reasoning starts the reasoning's time. Returns whether it was the first.
    func receiveReasoning(_ text: String) -> Bool {
        receiveOutput { output in
            if output.reasoningStartedAt == nil { output.reasoningStartedAt = clock.now }
            output.reasoning += text
            output.unsentReasoning += text
        }
    }

    /// Adds output with `add`, timing it when it is the reply's first.
    private func receiveOutput(_ add: (inout Output) -> Void) -> Bool {
        let now = ContinuousClock.now
        let isFirst = state.withLock { state in
            let isFirst = state.output.length == 0
            if isFirst { state.timing.firstTextAt = now }
            state.phase = max(state.phase, .streaming)
            add(&state.output)
            return isFirst
        }
        if isFirst { GenerationMetrics.firstToken(model: job.model.id, after: startedAt.duration(to: .now)) }
        return isFirst
    }

    /// Appends `event` with the reply's next id to its conversation's log in `hub`.
    func publish(_ event: StreamEvent, to hub: ConversationHub) {
        state.withLock { state in
            hub.append(event, id: nextEventID(&state), conversationID: job.conversationID)
        }
    }

    /// Appends the reasoning received since the last `reasoning` event as one, then the text received since the last
    /// `token` event as one, unless the last of either went out less than `interval` before `now`; `force` (the
    /// reply's end) appends at once, with the final tail if one was held back.
    func publishTokens(to hub: ConversationHub, now: Duration, interval: Duration, force: Bool) {
        state.withLock { state in
            let hasText = !state.output.unsent.isEmpty || (force && state.output.markdown.isHoldingTail)
            guard hasText || !state.output.unsentReasoning.isEmpty else { return }
            if !force, let last = state.output.lastTokenEvent, now - last < interval { return }
            state.output.lastTokenEvent = now
            if !state.output.unsentReasoning.isEmpty {
                let event = StreamEvent.reasoning(
                    messageID: job.assistantMessageID, text: state.output.unsentReasoning)
                state.output.unsentReasoning = ""
                appendOutput(event, to: hub, &state)
            }
            guard hasText else { return }
            let html = state.output.markdown.next(final: force)
            let event = StreamEvent.token(messageID: job.assistantMessageID, text: state.output.unsent, html: html)
            state.output.unsent = ""
            appendOutput(event, to: hub, &state)
        }
    }

    /// Appends a `reasoning` or `token` event with the reply's next id, noting the first one's sequence.
    private func appendOutput(_ event: StreamEvent, to hub: ConversationHub, _ state: inout State) {
        let id = nextEventID(&state)
        if state.timing.firstTokenSequence == nil { state.timing.firstTokenSequence = id.sequence }
        hub.append(event, id: id, conversationID: job.conversationID)
    }

    /// Ends the reply in `hub` with `done`; under the reply's lock, so that no event of the reply can follow it.
    func end(with done: StreamEvent, in hub: ConversationHub) {
        state.withLock { _ in hub.end(self, done: done) }
    }

    /// The next event id of this reply.
    private func nextEventID(_ state: inout State) -> EventID {
        state.output.sequence += 1
        return EventID(messageID: job.assistantMessageID, sequence: state.output.sequence)
    }

    /// The text and reasoning, when either changed since the last save, marking them saved; nil when nothing did.
    func takeUnsavedProgress() -> ReplyProgress? {
        state.withLock { state in
            guard state.output.length != state.output.savedLength else { return nil }
            state.output.savedLength = state.output.length
            return ReplyProgress(
                content: state.output.text, reasoning: state.output.reasoning.isEmpty ? nil : state.output.reasoning)
        }
    }

    /// Forgets that the text was saved, after a failed write, so the next save tries again.
    func markUnsaved() {
        state.withLock { $0.output.savedLength = -1 }
    }

    // MARK: Tool steps

    /// Ends a model call that asked for tools: takes its calls and its text, folds its usage into the earlier calls'
    /// (estimated where the provider gave none), and starts the next call's text after a paragraph break.
    func endStep() -> (calls: [ToolCall], text: String) {
        state.withLock { state in
            let calls = state.report.toolCalls
            let text = String(state.output.stepText)
            state.report.toolCalls = []
            state.report.earlierUsage += GenerationManager.chargedUsage(
                text: text, reasoning: "", reported: state.report.providerUsage,
                estimatedPrompt: state.report.estimatedPromptTokens)
            state.report.providerUsage = nil
            if !text.isEmpty, !text.hasSuffix("\n\n") {
                let separator = text.hasSuffix("\n") ? "\n" : "\n\n"
                state.output.text += separator
                state.output.unsent += separator
                state.output.markdown.append(separator)
            }
            state.output.stepStart = state.output.text.endIndex
            return (calls, text)
        }
    }

    /// Adds tool steps to the report; returns the index of the first.
    func addToolSteps(_ steps: [ToolStep]) -> Int {
        state.withLock { state in
            defer { state.report.toolSteps += steps }
            return state.report.toolSteps.count
        }
    }

    /// Changes the tool step at `index`.
    func updateToolStep(at index: Int, _ change: (inout ToolStep) -> Void) {
        state.withLock { change(&$0.report.toolSteps[index]) }
    }

    /// Waits until the user allows (true) or denies (false) the call, or `timeout` passes on the engine's clock (a
    /// denial); a cancelled task (Stop) denies it too.
    func decision(on callID: String, within timeout: Duration) async -> Bool {
        await withTaskGroup(of: Bool?.self) { group in
            group.addTask { await self.awaitDecision(on: callID) }
            group.addTask { [clock] in
                try? await clock.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            // Past the timeout the call is denied, which ends the waiting child.
            _ = decide(callID, allow: false)
            return first ?? false
        }
    }

    /// Waits for `decide` on the call; a cancelled task gets a denial.
    private func awaitDecision(on callID: String) async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let cancelled = state.withLock { state in
                    guard !Task.isCancelled else { return true }
                    state.decisions[callID] = continuation
                    return false
                }
                if cancelled { continuation.resume(returning: false) }
            }
        } onCancel: {
            _ = decide(callID, allow: false)
        }
    }

    /// Answers a call waiting for the user; returns whether one was waiting.
    func decide(_ callID: String, allow: Bool) -> Bool {
        let waiting = state.withLock { $0.decisions.removeValue(forKey: callID) }
        waiting?.resume(returning: allow)
        return waiting != nil
    }

    /// The reply's tool steps so far.
    var toolSteps: [ToolStep] { state.withLock { $0.report.toolSteps } }

    /// Whether the model's last call asked for tools.
    var asksForTools: Bool { state.withLock { !$0.report.toolCalls.isEmpty } }

    /// The current model call's text.
    var stepText: String { state.withLock { String($0.output.stepText) } }

    // MARK: Report

    /// Changes what the reply will be saved with.
    func updateReport(_ change: (inout Report) -> Void) {
        state.withLock { change(&$0.report) }
    }

    /// The reply's text, reasoning and report, to save it as it ended, with how long it reasoned: from the first
    /// reasoning to the first answer text, or to now when no answer followed (nil when it showed no reasoning).
    var outcome: (text: String, reasoning: String, reasoningTime: Duration?, report: Report) {
        state.withLock { state in
            let ended = state.output.reasoningEndedAt
            let reasoningTime = state.output.reasoningStartedAt.map { (ended ?? clock.now) - $0 }
            return (state.output.text, state.output.reasoning, reasoningTime, state.report)
        }
    }

    // MARK: First-token timing

    /// After a stream wrote the events up to `sequence` to its client: the first time they include the first text's
    /// event (`reasoning` or `token`, whichever came first), Parley's part of the first token, which leaves out the
    /// wait for the provider: from the request to the upstream request handed to the provider's client, plus from the
    /// first text's arrival to its event handed to the client's connection.
    func addedFirstTokenTime(wroteUpTo sequence: Int64) -> Duration? {
        let now = ContinuousClock.now
        return state.withLock { state in
            guard !state.timing.isRecorded, let first = state.timing.firstTokenSequence, first <= sequence,
                let textAt = state.timing.firstTextAt
            else { return nil }
            state.timing.isRecorded = true
            let requestLeft = min(state.timing.requestLeftAt ?? textAt, textAt)
            return receivedAt.duration(to: requestLeft) + textAt.duration(to: now)
        }
    }
}
