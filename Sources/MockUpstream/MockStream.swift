import Hummingbird

/// Plays a stream script in one wire format, keeping the stream counters exact.
struct MockStream<Wire: WireFormat>: Sendable {
    let script: StreamScript
    let wire: Wire
    let chat: ChatRequest
    let stats: MockStats
    let pacer: StreamPacer

    /// Thrown to drop the connection without the terminating chunk (`mock-reset`).
    private struct DroppedConnection: Error {}

    /// The response body. When `watchingForClose`, the client closing its connection cancels the playback at once;
    /// otherwise the next write fails.
    func body(for request: Request, watchingForClose: Bool) -> ResponseBody {
        ResponseBody { writer in
            await stats.streamOpened()
            do {
                if watchingForClose {
                    try await request.body.consumeWithCancellationOnInboundClose { _ in
                        try await play(into: &writer)
                    }
                } else {
                    try await play(into: &writer)
                }
            } catch {
                await stats.streamClosed(error is DroppedConnection ? .dropped : .aborted)
                throw error
            }
            // Counted before the terminating chunk, so a client that saw the end also sees the count.
            await stats.streamClosed(.completed)
            try await writer.finish(nil)
        }
    }

    /// Largest batch of due events held before writing.
    private static var batchSize: Int { 16 * 1024 }

    /// Sends the script's reasoning tokens, then its answer tokens, then its tool calls, at their due instants, then its
    /// ending. Token `i` (counting all three) is due `firstTokenDelay + i × tokenDelay` after the start, as a model generates at its own pace
    /// whoever reads: a stream that falls behind (a busy machine) catches up, and the events due by the time it writes
    /// share one write.
    private func play(into writer: inout any ResponseBodyWriter) async throws {
        let clock = ContinuousClock()
        let start = clock.now
        var pending = ByteBuffer(string: wire.prelude(chat))
        for index in 0..<(script.reasoning.count + script.completionTokens) {
            let due = start + script.firstTokenDelay + script.tokenDelay * index
            if due > clock.now {
                try await flush(&pending, to: &writer)
                try await pacer.sleep(until: due)
            }
            pending.writeString(event(at: index))
            if pending.readableBytes >= Self.batchSize {
                try await flush(&pending, to: &writer)
            }
        }
        switch script.ending {
        case .finish, .finishThenDrop:
            pending.writeString(wire.finale(chat, completionTokens: script.completionTokens))
            try await flush(&pending, to: &writer)
            if script.ending == .finishThenDrop { throw DroppedConnection() }
        case .garbage:
            pending.writeImmutableBuffer(StreamScript.garbage)
            try await flush(&pending, to: &writer)
        case .drop:
            try await flush(&pending, to: &writer)
            throw DroppedConnection()
        case .stall:
            try await flush(&pending, to: &writer)
            while true { try await Task.sleep(for: .seconds(3600)) }
        }
    }

    /// The events of token `index`: a reasoning token, an answer token or a tool call.
    private func event(at index: Int) -> String {
        let answerIndex = index - script.reasoning.count
        if answerIndex < 0 { return wire.reasoning(script.reasoning[index], index: index, chat: chat) }
        if answerIndex < script.chunks.count {
            return wire.token(script.chunks[answerIndex], index: answerIndex, chat: chat)
        }
        let callIndex = answerIndex - script.chunks.count
        return wire.toolCall(script.toolCalls[callIndex], index: callIndex, chat: chat)
    }

    /// Writes and empties `pending` unless it is empty (an empty chunk would end the body); throws if the client has
    /// gone.
    private func flush(_ pending: inout ByteBuffer, to writer: inout any ResponseBodyWriter) async throws {
        try Task.checkCancellation()
        guard pending.readableBytes > 0 else { return }
        try await writer.write(pending)
        pending.clear()
    }
}
