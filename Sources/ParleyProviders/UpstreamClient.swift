import AsyncHTTPClient
import Synchronization

/// The client for upstream providers: it spreads requests over as many `HTTPClient`s as it needs so that no one of them
/// carries more than `requestsPerClient` at once. An `HTTPClient` opens a single HTTP/2 connection to a host and
/// queues every request past the stream limit the server advertises (swift-server/async-http-client#567), and HTTPS
/// providers speak HTTP/2: with one client, a provider advertising 100 streams would let 100 replies run and leave
/// the rest waiting, without a token, until one ended.
public final class UpstreamClient: Sendable {
    /// The most requests one `HTTPClient` carries at once: the least stream limit RFC 9113 recommends a server
    /// advertise (§6.5.2), which is also what most do.
    public static let requestsPerClient = 100

    /// A client for tests and tools that never shuts down, as `HTTPClient.shared`.
    public static let shared = UpstreamClient(configuration: HTTPClient.Configuration())

    /// One `HTTPClient` and how many requests it carries now.
    private struct Slot {
        let client: HTTPClient
        var inFlight = 0
    }

    /// The clients in the order they were made, and whether `shutdown` has run.
    private struct State {
        var slots: [Slot]
        var isShutDown = false
    }

    private let configuration: HTTPClient.Configuration
    private let state: Mutex<State>

    /// Creates the client; every `HTTPClient` it makes has `configuration` on NIO's shared event loops.
    public init(configuration: HTTPClient.Configuration) {
        self.configuration = configuration
        state = Mutex(State(slots: [Slot(client: HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration))]))
    }

    /// How many `HTTPClient`s have been made.
    var clientCount: Int { state.withLock { $0.slots.count } }

    /// Runs `body` with the first `HTTPClient` carrying fewer than `requestsPerClient` requests, making one when all
    /// are full; the request counts until `body` returns. After `shutdown` every request gets the first client, which
    /// then fails it as shut down.
    func withHTTPClient<Result, Failure: Error>(
        _ body: (HTTPClient) async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        let (index, client) = lease()
        defer { state.withLock { $0.slots[index].inFlight -= 1 } }
        return try await body(client)
    }

    /// Closes every `HTTPClient`'s connections; call once, when the server stops.
    public func shutdown() async throws {
        let clients = state.withLock { state in
            state.isShutDown = true
            return state.slots.map(\.client)
        }
        for client in clients { try await client.shutdown() }
    }

    /// Takes a request slot: its index and client.
    private func lease() -> (Int, HTTPClient) {
        state.withLock { state in
            let index = state.slots.firstIndex { $0.inFlight < Self.requestsPerClient }
                ?? (state.isShutDown ? 0 : state.slots.endIndex)
            if index == state.slots.endIndex {
                state.slots.append(Slot(client: HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)))
            }
            state.slots[index].inFlight += 1
            return (index, state.slots[index].client)
        }
    }
}
