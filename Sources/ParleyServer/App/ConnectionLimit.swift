import HummingbirdCore
import Metrics
import NIOCore
import NIOHTTPTypes
import Synchronization

/// The most client connections the server keeps open at once (see `FileDescriptorBudget`). When a new connection would
/// pass it, a kept-alive connection idle between requests (after its first response) is closed to make room, as nginx
/// does: an HTTP client opens a new one for its next request (`parley_connections_drained_total`). With none idle, the
/// new connection is closed as soon as it is accepted, before anything is read (`parley_connections_refused_total`).
final class ConnectionLimit: Sendable {
    let maximum: Int
    private let state = Mutex(State())

    private struct State {
        var open = 0
        /// Open connections with no request in progress, which may be closed to make room.
        var idle: [ObjectIdentifier: any Channel] = [:]
        /// Connections closed to make room, whose slot already went to a newer connection.
        var drained: Set<ObjectIdentifier> = []
    }

    /// A limit of `maximum` connections.
    init(maximum: Int) {
        self.maximum = maximum
    }

    /// The HTTP/1.1 server with this limit on every accepted connection, each reading into small buffers first.
    var server: HTTPServerBuilder {
        HTTPServerBuilder { responder in
            SmallReadBufferChannel(HTTP1Channel(responder: responder,
                                                configuration: .init(additionalChannelHandlers: [ConnectionLimitHandler(limit: self)])))
        }
    }

    /// Counts a new connection if there is room, making room by closing an idle one when there is none; returns whether
    /// the connection was counted.
    fileprivate func admit() -> Bool {
        let (admitted, drained) = state.withLock { state -> (Bool, (any Channel)?) in
            if state.open < maximum {
                state.open += 1
                return (true, nil)
            }
            guard let key = state.idle.keys.first, let idle = state.idle.removeValue(forKey: key) else { return (false, nil) }
            // The idle connection's slot passes to the new one: it is not released again when it closes.
            state.drained.insert(key)
            return (true, idle)
        }
        if let drained {
            drained.close(promise: nil)
            Counter(label: "parley_connections_drained_total").increment()
        } else if !admitted {
            Counter(label: "parley_connections_refused_total").increment()
        }
        return admitted
    }

    /// Records whether a counted connection is idle (between requests) or busy.
    fileprivate func mark(_ channel: any Channel, idle: Bool) {
        let key = ObjectIdentifier(channel)
        state.withLock { state in
            guard idle, !state.drained.contains(key) else {
                state.idle[key] = nil
                return
            }
            state.idle[key] = channel
        }
    }

    /// Uncounts a counted connection once it has closed, unless its slot already went to a newer one.
    fileprivate func release(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        state.withLock { state in
            state.idle[key] = nil
            if state.drained.remove(key) == nil { state.open -= 1 }
        }
    }
}

/// Admits its connection through the limit when it becomes active (or closes it), tells the limit when the connection is
/// idle between requests (a new connection is not: its first request is on its way), and releases it when it closes.
private final class ConnectionLimitHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart

    private let limit: ConnectionLimit
    private var isCounted = false
    /// Requests read whose response has not ended.
    private var requestsInProgress = 0

    init(limit: ConnectionLimit) {
        self.limit = limit
    }

    func channelActive(context: ChannelHandlerContext) {
        isCounted = limit.admit()
        context.fireChannelActive()
        if !isCounted { context.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            requestsInProgress += 1
            if requestsInProgress == 1, isCounted { limit.mark(context.channel, idle: false) }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            requestsInProgress = max(0, requestsInProgress - 1)
            if requestsInProgress == 0, isCounted { limit.mark(context.channel, idle: true) }
        }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if isCounted { limit.release(context.channel) }
        isCounted = false
        context.fireChannelInactive()
    }
}
