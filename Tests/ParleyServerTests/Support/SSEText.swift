import ParleyProviders

/// The project's SSE parser over a complete text.
struct ParleyProvidersSSE {
    private var parser = SSEParser()
    private var attribution = ReplyAttribution()

    /// The events in `text`.
    mutating func feed(_ text: String) -> [ReceivedEvent] {
        parser.feed(Array(text.utf8)).map { attribution.event($0) }
    }
}
