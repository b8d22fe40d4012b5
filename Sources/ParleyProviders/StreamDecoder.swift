import ParleyCore

/// Reads one wire format's reply stream: turns its server-sent events into completion chunks.
protocol StreamDecoder: Sendable {
    /// Reads one event, appending the chunks it carries. Throws a `ProviderError`, or an `UpstreamFailure`
    /// when the provider reported an error inside the stream.
    mutating func decode(_ message: SSEMessage, into chunks: inout [CompletionChunk]) throws

    /// Whether the reply's closing event (a finish reason, `[DONE]`, `message_stop`) has come.
    var hasEnded: Bool { get }

    /// Checks, once the body has ended, that the reply was complete.
    func finish() throws(ProviderError)
}
