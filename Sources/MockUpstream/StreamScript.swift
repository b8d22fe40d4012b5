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
}
