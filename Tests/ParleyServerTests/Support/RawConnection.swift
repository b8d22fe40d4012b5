import NIOCore
import NIOPosix
import Synchronization

/// A bare TCP connection to a test server that keeps what it receives and whether the server closed it, for tests of
/// what happens to connections themselves (limits, draining).
final class RawConnection: Sendable {
    private let channel: any Channel
    private let inbox: Inbox

    /// Collects the bytes a connection receives and its close.
    private final class Inbox: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let received = Mutex((text: "", isClosed: false))

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = String(buffer: unwrapInboundIn(data))
            received.withLock { $0.text += bytes }
        }

        func channelInactive(context: ChannelHandlerContext) {
            received.withLock { $0.isClosed = true }
        }
    }

    private init(channel: any Channel, inbox: Inbox) {
        self.channel = channel
        self.inbox = inbox
    }

    /// Connects to the server on `port`.
    static func open(port: Int) async throws -> RawConnection {
        let inbox = Inbox()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { $0.pipeline.addHandler(inbox) }
            .connect(host: "127.0.0.1", port: port).get()
        return RawConnection(channel: channel, inbox: inbox)
    }

    /// What the server has sent so far, and whether it has closed the connection.
    var received: (text: String, isClosed: Bool) { inbox.received.withLock { $0 } }

    /// Sends `GET path` (kept alive, with `headers`) and waits for its response's head; returns the status code, or nil
    /// when the connection closed first or nothing came within 10 s.
    func get(_ path: String, headers: [String] = []) async throws -> Int? {
        let before = received.text.count
        let head = (["GET \(path) HTTP/1.1", "Host: 127.0.0.1"] + headers).joined(separator: "\r\n") + "\r\n\r\n"
        // A connection the server has already closed fails the write: it has no answer either.
        guard (try? await channel.writeAndFlush(ByteBuffer(string: head)).get()) != nil else { return nil }
        guard try await waitUntil({ $0.text.count > before && $0.text.contains("\r\n\r\n") || $0.isClosed }) else {
            return nil
        }
        let answer = received.text.dropFirst(before)
        guard answer.hasPrefix("HTTP/1.1 ") else { return nil }
        return Int(answer.dropFirst(9).prefix(3))
    }

    /// Sends `text` as it is (part of a request, say); false when the server has closed the connection.
    func send(_ text: String) async -> Bool {
        (try? await channel.writeAndFlush(ByteBuffer(string: text)).get()) != nil
    }

    /// Waits, at most 10 s, until `condition` holds for what was received; returns whether it did.
    func waitUntil(_ condition: ((text: String, isClosed: Bool)) -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition(received) {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// Closes the connection.
    func close() async {
        try? await channel.close()
    }
}

/// Loopback ports for tests of a provider that is down.
enum UpstreamConnectProbe {
    /// A loopback port nothing listens on (bound, then closed).
    static func closedPort() throws -> Int {
        let channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0)
            .wait()
        let port = channel.localAddress?.port ?? 0
        try channel.close().wait()
        return port
    }
}
