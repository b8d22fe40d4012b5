import ParleyProviders

/// The project's SSE parser over a complete text.
struct ParleyProvidersSSE {
    private var parser = SSEParser()

    /// The events in `text`.
    mutating func feed(_ text: String) -> [ReceivedEvent] {
        parser.feed(Array(text.utf8)).map { ReceivedEvent(id: $0.id, name: $0.event, data: $0.data) }
    }
}
