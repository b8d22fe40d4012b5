import AsyncHTTPClient
import Foundation
import NIOHTTP1
import ParleyProviders
import Synchronization

/// One received Server-Sent Event, its JSON data decoded.
struct ReceivedEvent: Sendable {
    var id: String?
    var name: String
    var data: String
    /// The reply it belongs to: its own `message_id`, else the one its stream named last (nil when none was).
    var reply: Int?

    /// The data as a JSON object.
    var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any]) ?? [:] }
}

/// Gives each event of one stream its reply, as a client must: an event without `message_id` belongs to the reply
/// the stream named last (a `title` belongs to none).
struct ReplyAttribution {
    private var named: Int?

    /// The event read from `message`, with its reply.
    mutating func event(_ message: SSEMessage) -> ReceivedEvent {
        var event = ReceivedEvent(id: message.id, name: message.event, data: message.data)
        if let id = event.json["message_id"] as? Int { named = id }
        if event.name != "title" { event.reply = named }
        return event
    }
}

/// What the background reader has received so far.
private final class ReceivedEvents: Sendable {
    struct State {
        var events: [ReceivedEvent] = []
        var consumed = 0
        var comments = 0
        var finished = false
    }
    let state = Mutex(State())
}

/// Reads an event stream response in the background with the project's own SSE parser; tests take events in order.
final class EventReader: Sendable {
    let status: Int
    let headers: HTTPHeaders
    private let received = ReceivedEvents()
    private let reading = Mutex<Task<Void, Never>?>(nil)

    /// Starts reading the body.
    init(status: Int, headers: HTTPHeaders, body: HTTPClientResponse.Body) {
        self.status = status
        self.headers = headers
        let task = Task { [received] in
            let state = received
            var parser = SSEParser()
            var attribution = ReplyAttribution()
            do {
                for try await buffer in body {
                    let comments = String(buffer: buffer).components(separatedBy: ": heartbeat\n").count - 1
                    let events = parser.feed(buffer.readableBytesView).map { attribution.event($0) }
                    state.state.withLock {
                        $0.comments += comments
                        $0.events += events
                    }
                }
            } catch {}
            state.state.withLock { $0.finished = true }
        }
        reading.withLock { $0 = task }
    }

    deinit {
        reading.withLock { $0?.cancel() }
    }

    /// Heartbeat comments received so far.
    var comments: Int { received.state.withLock { $0.comments } }

    /// Waits until `count` heartbeat comments arrived (true) or `timeout` passed (false).
    func waitForComments(_ count: Int, timeout: Duration = .seconds(10)) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while comments < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        return comments >= count
    }

    /// Takes events until `stop` returns true for one (included), the stream ends, or `timeout` passes (an error).
    func collect(timeout: Duration = .seconds(15), until stop: (ReceivedEvent, [ReceivedEvent]) -> Bool) async throws
        -> [ReceivedEvent]
    {
        let deadline = ContinuousClock.now + timeout
        var taken: [ReceivedEvent] = []
        while ContinuousClock.now < deadline {
            let (fresh, finished) = received.state.withLock { state in
                defer { state.consumed = state.events.count }
                return (Array(state.events[state.consumed...]), state.finished)
            }
            for (index, event) in fresh.enumerated() {
                taken.append(event)
                if stop(event, taken) {
                    received.state.withLock { $0.consumed -= fresh.count - index - 1 }
                    return taken
                }
            }
            if finished { return taken }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TestFailure("no matching event within \(timeout); got \(taken.map(\.name))")
    }

    /// Takes every event received so far, without waiting.
    func drain() -> [ReceivedEvent] {
        received.state.withLock { state in
            defer { state.consumed = state.events.count }
            return Array(state.events[state.consumed...])
        }
    }

    /// Takes events until one matches `stop`.
    func collect(timeout: Duration = .seconds(15), until stop: (ReceivedEvent) -> Bool) async throws -> [ReceivedEvent]
    {
        try await collect(timeout: timeout) { event, _ in stop(event) }
    }

    /// Takes events until `count` token events arrived.
    func untilTokens(_ count: Int, timeout: Duration = .seconds(15)) async throws -> [ReceivedEvent] {
        try await collect(timeout: timeout) { _, events in events.filter { $0.name == "token" }.count == count }
    }

    /// Takes events until the `done` event of a reply.
    func untilDone(timeout: Duration = .seconds(15)) async throws -> [ReceivedEvent] {
        try await collect(timeout: timeout) { $0.name == "done" }
    }

    /// Takes events until the server ends the stream.
    func untilEnd(timeout: Duration = .seconds(15)) async throws -> [ReceivedEvent] {
        try await collect(timeout: timeout) { _ in false }
    }
}

extension Array where Element == ReceivedEvent {
    /// The concatenated raw `text` of the token events.
    var text: String { filter { $0.name == "token" }.map { $0.json["text"] as? String ?? "" }.joined() }

    /// The concatenated `append` HTML plus the last `tail` sent (an event without one keeps the previous tail).
    var streamedHTML: String {
        let tokens = filter { $0.name == "token" }
        return tokens.map { $0.json["append"] as? String ?? "" }.joined()
            + (tokens.last { $0.json["tail"] != nil }?.json["tail"] as? String ?? "")
    }

    /// The `done` event, if any.
    var done: ReceivedEvent? { first { $0.name == "done" } }
}
