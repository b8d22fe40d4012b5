import HummingbirdCore
import Logging
import NIOCore

/// An accepted connection that reads into a 512-byte buffer at first, growing it only when reads fill it (NIO's
/// adaptive sizing), instead of NIO's 2 KB. A connection keeps its read buffer while it is open, and an event stream's
/// connection, once its request is read, is open for the whole reply with nothing more to read: at thousands of open
/// streams the smaller buffer is ~1.4 KB less a stream. A larger request is read in a few more reads of the same
/// wake-up.
struct SmallReadBufferChannel<Base: ServerChildChannel>: WrappingChildChannel {
    typealias Value = Base.Value

    /// The first read's size; later reads grow (or shrink) with what arrives, up to NIO's 64 KB.
    static var firstReadSize: Int { 512 }

    let base: Base

    /// Wraps the channel that handles the connection.
    init(_ base: Base) {
        self.base = base
    }

    /// Sets the connection's read buffer sizing, then sets up the wrapped channel.
    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let sizing = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: Self.firstReadSize, maximum: 65536)
        return channel.setOption(ChannelOptions.recvAllocator, value: sizing).flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }
}
