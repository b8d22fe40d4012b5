import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import Testing

@testable import ParleyServer

/// Accepted connections read into small buffers first, and requests far larger than that still arrive whole.
@Suite("Small read buffers")
struct SmallReadBufferTests {
    /// What `SizingProbe`'s setup found: the connection and the read sizing it had by then.
    struct ProbedConnection: ServerChildChannelValue {
        let channel: any Channel
        let sizing: AdaptiveRecvByteBufferAllocator?
    }

    /// A child channel whose setup yields the read sizing the connection has by then.
    struct SizingProbe: ServerChildChannel {
        func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<ProbedConnection> {
            channel.getOption(ChannelOptions.recvAllocator).map {
                ProbedConnection(channel: channel, sizing: $0 as? AdaptiveRecvByteBufferAllocator)
            }
        }

        func handle(value: ProbedConnection, logger: Logger) async {}
    }

    @Test("a connection's reads start at 512 bytes, set before the wrapped channel's setup, and may grow to 64 KB")
    func sizingIsSetFirst() async throws {
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let probed = try await SmallReadBufferChannel(SizingProbe()).setup(
            channel: channel, logger: Logger(label: "test")
        ).get()
        try await channel.close()
        let seen = try #require(probed.sizing)
        #expect(seen.initial == 512)
        #expect(seen.maximum == 65536)
    }

    @Test("a request of 40 KB of headers and body, many times the first read, is answered like any other")
    func largeRequestArrivesWhole() async throws {
        try await withTestServer { server in
            let api = try await GenerationTests.signedIn(server)
            let id = try await api.createConversation(model: "mock-fast")
            let question = String(repeating: "a long question ", count: 2_000)
            let response = try await api.request(
                .POST, "/api/conversations/\(id)/messages", json: ["content": question],
                headers: [("X-Padding", String(repeating: "p", count: 8_000))])
            #expect(response.status == 202)
            let saved = try await api.messages(id)
            #expect(saved.first?["content"] as? String == question)
        }
    }
}
