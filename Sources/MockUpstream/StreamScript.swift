import Hummingbird

/// What one streamed reply sends: its reasoning and token texts, their pacing and how the stream ends.
struct StreamScript: Sendable {
    /// How a stream ends once its tokens are sent.
    enum Ending: Sendable {
        /// Sends the wire format's closing events and ends the response.
        case finish
        /// Drops the connection without the terminating chunk.
        case drop
        /// Sends the wire format's closing events, then drops the connection without the terminating chunk.
        case finishThenDrop
        /// Sends nothing more, keeping the connection open until the client closes it.
        case stall
        /// Sends malformed lines and binary junk, then ends the response.
        case garbage
    }

    /// Malformed events and binary junk sent by `mock-garbage`.
    static let garbage: ByteBuffer = {
        var buffer = ByteBuffer(string: "data: {not json\n\n")
        buffer.writeBytes([0xFF, 0xFE, 0x00, 0x80, 0xC3, 0x28, 0x0A])
        buffer.writeString("data: {\"choices\":[{\"delta\":\n\n")
        return buffer
    }()

    /// Reasoning texts streamed before the answer's, one a token, in the wire format's own reasoning form.
    var reasoning: [String]
    var chunks: [String]
    var firstTokenDelay: Duration
    var tokenDelay: Duration
    var ending: Ending
    /// Tool calls asked for after the answer's tokens, one a token (`mock-tools`).
    var toolCalls: [MockToolReply.Call] = []

    /// The tokens the reply counts: its answer's, and one per call.
    var completionTokens: Int { chunks.count + toolCalls.count }
}

extension StreamScript {
    /// The script as a provider honours a request's limits: the answer ends before the first stop sequence, and after
    /// `maxTokens` tokens (then as cut at the limit, which the second value says).
    func honouring(stop: [String], maxTokens: Int?) -> (StreamScript, cutAtLimit: Bool) {
        var script = self
        if !stop.isEmpty {
            var text = ""
            for (index, chunk) in chunks.enumerated() {
                text += chunk
                guard let found = stop.compactMap({ text.range(of: $0) }).min(by: { $0.lowerBound < $1.lowerBound })
                else { continue }
                let before = text[..<found.lowerBound]
                let sentBefore = chunks[..<index].joined().count
                script.chunks = Array(chunks[..<index]) + [String(before.dropFirst(sentBefore))].filter { !$0.isEmpty }
                break
            }
        }
        guard let maxTokens, maxTokens >= 0, script.chunks.count > maxTokens else { return (script, false) }
        script.chunks = Array(script.chunks.prefix(maxTokens))
        return (script, true)
    }
}
