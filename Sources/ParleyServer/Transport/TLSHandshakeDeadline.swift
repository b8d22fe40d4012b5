import HummingbirdCore
import Logging
import NIOCore
import NIOSSL
import NIOTLS

/// An accepted HTTPS connection that must finish its TLS handshake within `timeout`, or is closed: a client that
/// connects and sends nothing (or half a handshake) would otherwise hold its connection, and the server's graceful
/// shutdown, for ever. `onCompleted` learns of each handshake that completes.
struct TLSHandshakeDeadlineChannel<Base: ServerChildChannel>: WrappingChildChannel {
    typealias Value = Base.Value

    private let timeout: Duration
    private let onCompleted: @Sendable (any Channel) -> Void
    let base: Base

    /// Wraps the channel that sets up TLS and handles the connection.
    init(timeout: Duration, onCompleted: @escaping @Sendable (any Channel) -> Void = { _ in }, _ base: Base) {
        self.timeout = timeout
        self.onCompleted = onCompleted
        self.base = base
    }

    /// Sets up the wrapped channel, then watches its TLS handler's handshake.
    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let tls = try operations.context(handlerType: NIOSSLServerHandler.self)
            try operations.addHandler(
                HandshakeDeadlineHandler(timeout: TimeAmount(timeout), onCompleted: onCompleted),
                position: .after(tls.handler))
            return value
        }
    }
}

/// Closes its connection unless the TLS handshake completes before the deadline; then leaves the pipeline.
private final class HandshakeDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let timeout: TimeAmount
    private let onCompleted: @Sendable (any Channel) -> Void
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount, onCompleted: @escaping @Sendable (any Channel) -> Void) {
        self.timeout = timeout
        self.onCompleted = onCompleted
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        context.fireUserInboundEventTriggered(event)
        // Passed on first: the protocol negotiation after this handler waits for the same event.
        if case .handshakeCompleted = event as? TLSUserEvent {
            onCompleted(context.channel)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }
}
