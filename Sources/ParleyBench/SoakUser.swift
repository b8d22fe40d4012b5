import AsyncHTTPClient
import Foundation
import Synchronization

/// The kinds of request a soak makes.
enum SoakAction: String, CaseIterable, Codable, Sendable {
    case send, reconnect, stop, page, create, delete
}

/// What a soak has seen so far, shared by its users: per kind of request, how many, their times and the unexpected
/// errors, and the first errors' descriptions.
final class SoakTally: Sendable {
    /// One kind's figures.
    struct Figures: Sendable {
        var requests = 0
        var errors = 0
        var milliseconds: [Double] = []
    }

    /// Everything recorded.
    struct State: Sendable {
        var figures: [SoakAction: Figures] = [:]
        var errorSamples: [String] = []
    }

    /// How many error descriptions are kept.
    static let keptErrors = 20
    private let state = Mutex(State())

    /// Runs `request`, one of `kind`, recording the milliseconds it reports or its error.
    func record(_ kind: SoakAction, _ request: () async throws -> Double) async {
        do {
            let milliseconds = try await request()
            state.withLock { state in
                state.figures[kind, default: Figures()].requests += 1
                state.figures[kind, default: Figures()].milliseconds.append(milliseconds)
            }
        } catch {
            state.withLock { state in
                state.figures[kind, default: Figures()].requests += 1
                state.figures[kind, default: Figures()].errors += 1
                if state.errorSamples.count < Self.keptErrors {
                    state.errorSamples.append("\(kind.rawValue): \(error)")
                }
            }
        }
    }

    /// Runs `request`, one of `kind`, recording how long it took or its error.
    func time(_ kind: SoakAction, _ request: () async throws -> Void) async {
        await record(kind) {
            let start = ContinuousClock.now
            try await request()
            return start.duration(to: .now).milliseconds
        }
    }

    /// A copy of everything recorded so far.
    var snapshot: State { state.withLock { $0 } }
}

/// One soak user: a steady rotation of sends, reconnects, stops and page views, one request at a time, over two
/// conversations of its own (a `mock-fast` one, and a `mock-slow` one to stop), each deleted and replaced by a fresh
/// one after `repliesPerConversation` replies so that pages and exports keep the same size however long the soak runs.
struct SoakUser {
    /// The requests a user makes in turn.
    enum Step {
        case send, reconnect, stop, page
    }

    static let rotation: [Step] = [.send, .page, .reconnect, .page, .stop, .page]
    static let repliesPerConversation = 10
    /// The pages viewed in turn; `{id}` is the user's current conversation.
    static let pages = ["/c", "/c/{id}", "/search?q=benchmark", "/c/{id}/export.md", "/api/conversations?limit=20"]
    /// Token events a reconnecting client reads before it drops the connection.
    static let tokensBeforeDrop = 3

    let session: BenchSession
    let probe: StreamProbe
    let tally: SoakTally
    private var chat: Int
    private var slow: Int
    private var chatReplies = 0
    private var slowReplies = 0
    private var pageViews = 0

    /// Signs user number `index` up (or in) and creates its two conversations.
    init(_ index: Int, client: HTTPClient, parley: String, mock: String, tally: SoakTally) async throws {
        session = try await BenchSession.start(client: client, parley: parley, email: "soak\(index)@example.com")
        probe = StreamProbe(client: client, streams: [client], parley: parley, mock: mock, token: session.token)
        self.tally = tally
        chat = try await session.conversations(count: 1)[0]
        slow = try await session.conversations(count: 1, model: "mock-slow")[0]
    }

    /// Runs the rotation from its step `offset` until `end` (and at most `maxSteps` requests), pausing between
    /// requests.
    mutating func run(offset: Int, until end: ContinuousClock.Instant, pause: Duration, maxSteps: Int) async {
        for step in offset..<(offset + maxSteps) {
            guard ContinuousClock.now < end else { return }
            await perform(Self.rotation[step % Self.rotation.count])
            try? await Task.sleep(for: pause)
        }
    }

    /// Makes one request of the rotation, then replaces a conversation that has had its share of replies.
    private mutating func perform(_ step: Step) async {
        let (probe, chat, slow) = (probe, chat, slow)
        switch step {
        case .send:
            await tally.record(.send) { try await probe.relayedReply(conversation: chat).firstToken }
            chatReplies += 1
        case .reconnect:
            await tally.record(.reconnect) {
                try await probe.reconnectedReply(conversation: chat, dropAfter: Self.tokensBeforeDrop)
            }
            chatReplies += 1
        case .stop:
            await tally.record(.stop) { try await probe.stopLatency(conversation: slow) }
            slowReplies += 1
        case .page:
            let path = Self.pages[pageViews % Self.pages.count].replacingOccurrences(of: "{id}", with: "\(chat)")
            let timer = RequestTimer(client: session.client, token: session.token)
            await tally.time(.page) { _ = try await timer.get(session.parley + path) }
            pageViews += 1
        }
        if chatReplies >= Self.repliesPerConversation {
            self.chat = await replace(chat, model: "mock-fast")
            chatReplies = 0
        }
        if slowReplies >= Self.repliesPerConversation {
            self.slow = await replace(slow, model: "mock-slow")
            slowReplies = 0
        }
    }

    /// Deletes `conversation` (its replies have ended) and returns a fresh one of `model` (the old id if that failed).
    private func replace(_ conversation: Int, model: String) async -> Int {
        let session = session
        await tally.time(.delete) {
            try await JSONCall.delete(
                session.client, "\(session.parley)/api/conversations/\(conversation)", token: session.token)
        }
        var fresh = conversation
        await tally.time(.create) { fresh = try await session.conversations(count: 1, model: model)[0] }
        return fresh
    }
}
