import HTTPTypes
import Hummingbird
import ParleyCore
import ServiceLifecycle

/// Writes a conversation's events as `text/event-stream`, with heartbeats; a failed write (the client left) ends it.
enum EventStreamResponse {
    /// The headers of every event stream: not cached, not transformed, and not buffered by a proxy (nginx).
    static let headers: HTTPFields = [
        .contentType: "text/event-stream; charset=utf-8",
        .cacheControl: "no-cache, no-transform",
        HTTPField.Name("X-Accel-Buffering")!: "no",
    ]

    /// The streaming response; with `endAfterDoneOf`, it closes once that reply's `done` was sent; `onClose` runs when
    /// the stream ends, however it ends.
    static func make(
        _ subscription: EventSubscription, endAfterDoneOf messageID: MessageID?,
        onClose: @escaping @Sendable () -> Void = {}
    ) -> Response {
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                var subscription = subscription
                defer {
                    subscription.close()
                    onClose()
                }
                try await writer.write(ByteBuffer(string: "retry: 1000\n: connected\n\n"))
                // The server waits for open connections when it shuts down: end this one then (the browser resumes
                // with Last-Event-ID once the server is back).
                try await withGracefulShutdownHandler {
                    loop: while true {
                        switch await subscription.next() {
                        case .frames(let frames, let finishing):
                            try await writer.write(ByteBuffer(bytes: frames))
                            subscription.wrote()
                            if let messageID, finishing == messageID { break loop }
                        case .heartbeat:
                            try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                        case .ended:
                            break loop
                        }
                    }
                } onGracefulShutdown: { [subscription] in
                    subscription.end()
                }
                try await writer.finish(nil)
            })
    }
}
