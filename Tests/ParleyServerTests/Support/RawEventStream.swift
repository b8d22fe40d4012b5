import NIOCore
import NIOPosix

/// An event-stream request on a bare socket, for hostile clients: one that never reads a byte (a tiny receive buffer
/// and no reads, so the server's writes back up), or one that reads and throws everything away until it is closed.
enum RawEventStream {
    /// Opens a connection to `port`, asks for the events of `conversation` with `token`; `reads` says whether it reads.
    static func open(port: Int, conversation: Int64, token: String, reads: Bool) async throws -> Channel {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.so_rcvbuf), value: 1024)
            .channelOption(.autoRead, value: reads)
            .connect(host: "127.0.0.1", port: port).get()
        let request =
            "GET /c/\(conversation)/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\r\n"
        try await channel.writeAndFlush(ByteBuffer(string: request)).get()
        return channel
    }
}
