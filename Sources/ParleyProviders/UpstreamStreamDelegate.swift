import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import ParleyCore
import Synchronization

/// Reads a streamed reply where its bytes arrive, on the request's event loop (usually its connection's): parses the
/// server-sent events, decodes them and hands each chunk to the sink there, with no task switch per read. When the sink
/// asks for a pause, the next read waits that long, so that the chunks sent meanwhile arrive in one read. A status
/// outside 2xx gathers the error body instead and ends the request with an `UpstreamFailure`. It also holds the reply
/// to the first-token and between-tokens deadlines with one timer on that event loop, failing the request with
/// `.timedOut`.
final class UpstreamStreamDelegate<Decoder: StreamDecoder>: HTTPClientResponseDelegate {
    typealias Response = Void

    /// What the reply has read so far.
    private struct State {
        var decoder: Decoder
        var parser = SSEParser()
        var chunks: [CompletionChunk] = []
        /// Set for a status outside 2xx: the response to explain once its body has been read.
        var failure: (status: Int, headers: HTTPHeaders, body: ByteBuffer)?
        var lastProgress: NIODeadline?
        var timer: Scheduled<Void>?
        /// A pause just ended: the client is handing over the parts it read before it, which are not paused again.
        var isResuming = false
        /// Whether any server-sent event came (a 2xx body without one is an empty reply, not a cut one).
        var hasEvents = false
        var isFinished = false
        /// The request this delegate reads, and how the reply ends (both set by `watch`).
        var task: HTTPClient.Task<Void>?
        var end: EventLoopFuture<Void>?
    }

    // AsyncHTTPClient calls the delegate on the task's event loop, and the timer runs there too; only the reply's
    // wait (once) and a Stop take this lock from elsewhere, so it is hardly ever contended. It is what makes the class
    // Sendable without an unchecked promise.
    private let state: Mutex<State>
    private let onChunk: @Sendable (CompletionChunk) -> Duration
    private let first: TimeAmount
    private let between: TimeAmount
    private let started = NIODeadline.now()

    /// Creates a delegate that reads with `decoder`, hands chunks to `onChunk`, and enforces `timeouts`.
    init(decoder: Decoder, timeouts: UpstreamTimeouts, onChunk: @escaping @Sendable (CompletionChunk) -> Duration) {
        state = Mutex(State(decoder: decoder))
        self.onChunk = onChunk
        first = TimeAmount(timeouts.firstToken)
        between = TimeAmount(timeouts.betweenTokens)
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        if !(200..<300).contains(head.status.code) {
            state.withLock { $0.failure = (Int(head.status.code), head.headers, ByteBuffer()) }
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        do {
            let pause = try state.withLock { state -> Duration in
                if state.failure != nil {
                    var part = buffer
                    let room = UpstreamRequest.maxErrorBody - state.failure!.body.readableBytes
                    if room > 0, let bytes = part.readSlice(length: min(room, part.readableBytes)) {
                        state.failure!.body.writeImmutableBuffer(bytes)
                    }
                    return .zero
                }
                var pause = Duration.zero
                for message in state.parser.feed(buffer.readableBytesView) {
                    state.hasEvents = true
                    try state.decoder.decode(message, into: &state.chunks)
                    guard !state.chunks.isEmpty else { continue }
                    state.lastProgress = .now()
                    for chunk in state.chunks { pause = onChunk(chunk) }
                    state.chunks.removeAll(keepingCapacity: true)
                }
                return state.isResuming ? .zero : pause
            }
            guard pause > .zero else { return task.eventLoop.makeSucceededVoidFuture() }
            return resume(task, after: pause)
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
    }

    /// A future that completes after `pause`. The client then hands over at once, inside that completion, the parts
    /// it had already read; those are marked as resuming, so that only a part from a new read pauses again.
    private func resume(_ task: HTTPClient.Task<Void>, after pause: Duration) -> EventLoopFuture<Void> {
        let resumed = task.eventLoop.makePromise(of: Void.self)
        task.eventLoop.scheduleTask(in: TimeAmount(pause)) { [self] in
            state.withLock { $0.isResuming = true }
            resumed.succeed()
            state.withLock { $0.isResuming = false }
        }
        return resumed.futureResult
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        try checkReply()
    }

    /// Throws the error response, or what the decoder finds wrong with the reply read (incomplete, refused).
    private func checkReply() throws {
        let (failure, decoder, hasEvents) = state.withLock { ($0.failure, $0.decoder, $0.hasEvents) }
        if let failure {
            throw UpstreamFailure(status: failure.status, body: String(buffer: failure.body), headers: failure.headers)
        }
        // A server that cannot take the prompt (llama.cpp's, for one too long) may answer 200 and nothing else.
        guard hasEvents else { throw ProviderError.emptyReply }
        try decoder.finish()
    }

    /// Starts the deadlines of `task`, which this delegate reads; they end with the request, however it ends (the
    /// request completes on the event loop the deadline checks run on, so none can run after it).
    func watch(_ task: HTTPClient.Task<Void>) {
        // A 2xx reply whose closing event came is complete whatever then becomes of its connection: a proxy may cut it
        // before the response's end, and AsyncHTTPClient fails a complete `Connection: close` reply as
        // `remoteConnectionClosed` when it reads it before its own request's end is registered.
        let end = task.futureResult.flatMapErrorThrowing { [self] error in
            guard state.withLock({ $0.failure == nil && $0.decoder.hasEnded }) else { throw error }
            try checkReply()
        }
        state.withLock { state in
            state.task = task
            state.end = end
        }
        check(task)
        task.futureResult.whenComplete { [self] _ in stopWatching() }
    }

    /// How the reply ends: with the request, or complete once its closing event came (see `watch`).
    var end: EventLoopFuture<Void> {
        state.withLock { $0.end! }
    }

    /// Closes the request.
    func cancel() {
        state.withLock { $0.task }?.cancel()
    }

    /// Fails the request once its current deadline has passed without progress, else looks again at that deadline.
    /// Before the first progress it looks at least every `between`, since a first progress brings the deadline forward.
    private func check(_ task: HTTPClient.Task<Void>) {
        let now = NIODeadline.now()
        let expired = state.withLock { state -> Bool in
            guard !state.isFinished else { return false }
            let deadline = state.lastProgress.map { $0 + between } ?? started + first
            guard now < deadline else { return true }
            let wake = state.lastProgress == nil ? min(deadline, now + between) : deadline
            state.timer = task.eventLoop.scheduleTask(deadline: wake) { [self] in check(task) }
            return false
        }
        if expired { task.fail(reason: ProviderError.timedOut) }
    }

    /// Cancels the pending deadline check, and lets go of the ended request (which holds this delegate).
    private func stopWatching() {
        state.withLock { state in
            state.isFinished = true
            state.timer?.cancel()
            state.timer = nil
            state.task = nil
        }
    }
}
