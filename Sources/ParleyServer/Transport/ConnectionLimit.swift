import HummingbirdCore
import HummingbirdHTTP2
import Metrics
import NIOCore
import NIOHTTPTypes
import NIOSSL
import Synchronization

/// The most client connections the server keeps open at once (see `FileDescriptorBudget`). When a new connection would
/// pass it, the connection idle the longest is closed to make room, as nginx does (`parley_connections_drained_total`):
/// an HTTP/1.1 connection between requests (an HTTP client opens a new one for its next request), or one that has not
/// sent its first request's head (or finished its TLS handshake) yet, so that silent connections cannot hold every
/// place. With none idle, the new connection is closed as soon as it is accepted, before anything is read
/// (`parley_connections_refused_total`). An HTTP/2 connection counts once however many streams it carries, and is
/// never drained once negotiated: it usually carries all of a browser's tabs. Every connection must send a request's
/// head within `idleTimeout` of opening or of its previous response, or is closed.
final class ConnectionLimit: Sendable {
    let maximum: Int
    private let state = Mutex(State())

    private struct State {
        var open = 0
        /// The connections counted and not yet released (HTTP/2 streams are not among them).
        var counted: Set<ObjectIdentifier> = []
        /// Open connections with no request in progress, which may be closed to make room, each with the count of
        /// `becameIdle` when it did.
        var idle: [ObjectIdentifier: (channel: any Channel, since: UInt64)] = [:]
        /// How many times a connection has become idle.
        var becameIdle: UInt64 = 0
        /// Connections closed to make room, whose slot already went to a newer connection.
        var drained: Set<ObjectIdentifier> = []
    }

    /// A limit of `maximum` connections.
    init(maximum: Int) {
        self.maximum = maximum
    }

    /// The server with this limit on every accepted connection, each reading into small buffers first: HTTP/1.1, or
    /// with `tls`, HTTPS that negotiates HTTP/2 or HTTP/1.1 by ALPN, each connection's handshake done within
    /// `handshakeTimeout`, and an HTTP/2 connection closed once it has had no stream for `http2IdleTimeout`; an
    /// HTTP/1.1 connection must send a request's head within `idleTimeout` of opening or of its previous response.
    func server(tls: TLSConfiguration?, handshakeTimeout: Duration, http2IdleTimeout: Duration, idleTimeout: Duration)
        -> HTTPServerBuilder
    {
        HTTPServerBuilder { responder in
            let requests = HTTP1Channel.Configuration(
                additionalChannelHandlers: [RequestActivityHandler(limit: self)],
                idleTimeout: TimeAmount(idleTimeout))
            guard let tls else {
                return AdmittedChannel(
                    limit: self, SmallReadBufferChannel(HTTP1Channel(responder: responder, configuration: requests)))
            }
            // Negotiated, a connection is no longer reclaimable: an HTTP/2 one never, an HTTP/1.1 one between requests.
            let negotiated: @Sendable (any Channel) -> Void = { self.mark($0, idle: false) }
            return AdmittedChannel(
                limit: self,
                SmallReadBufferChannel(
                    TLSHandshakeDeadlineChannel(
                        timeout: handshakeTimeout, onCompleted: negotiated,
                        try HTTP2UpgradeChannel(
                            tlsConfiguration: tls,
                            configuration: .init(idleTimeout: http2IdleTimeout, streamConfiguration: requests),
                            responder: responder))))
        }
    }

    /// The handler that counts a new connection through this limit (or closes it), first in its pipeline.
    func admissionHandler() -> some ChannelInboundHandler & RemovableChannelHandler {
        ConnectionAdmissionHandler(limit: self)
    }

    /// Counts a new connection if there is room, making room by closing an idle one when there is none; returns whether
    /// the connection was counted.
    fileprivate func admit(_ channel: any Channel) -> Bool {
        let key = ObjectIdentifier(channel)
        let (admitted, drained) = state.withLock { state -> (Bool, (any Channel)?) in
            if state.open < maximum {
                state.open += 1
                state.counted.insert(key)
                Self.markIdle(channel, key, in: &state)
                return (true, nil)
            }
            // The longest idle (a scan, made only at the limit): the likeliest to stay unused.
            guard let idleKey = state.idle.min(by: { $0.value.since < $1.value.since })?.key,
                let idle = state.idle.removeValue(forKey: idleKey)?.channel
            else { return (false, nil) }
            // The idle connection's slot passes to the new one: it is not released again when it closes.
            state.drained.insert(idleKey)
            state.counted.insert(key)
            Self.markIdle(channel, key, in: &state)
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

    /// Records whether a counted connection is idle (between requests) or busy; an HTTP/2 stream's channel is not a
    /// counted connection, so its requests change nothing.
    func mark(_ channel: any Channel, idle: Bool) {
        let key = ObjectIdentifier(channel)
        state.withLock { state in
            guard idle, state.counted.contains(key), !state.drained.contains(key) else {
                state.idle[key] = nil
                return
            }
            Self.markIdle(channel, key, in: &state)
        }
    }

    /// Makes a counted connection the newest idle one.
    private static func markIdle(_ channel: any Channel, _ key: ObjectIdentifier, in state: inout State) {
        state.becameIdle += 1
        state.idle[key] = (channel, state.becameIdle)
    }

    /// Uncounts a counted connection once it has closed, unless its slot already went to a newer one.
    fileprivate func release(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        state.withLock { state in
            state.idle[key] = nil
            state.counted.remove(key)
            if state.drained.remove(key) == nil { state.open -= 1 }
        }
    }
}

/// Admits its connection through the limit when it becomes active (or closes it), and releases it when it closes.
private final class ConnectionAdmissionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let limit: ConnectionLimit
    private var isCounted = false

    init(limit: ConnectionLimit) {
        self.limit = limit
    }

    func channelActive(context: ChannelHandlerContext) {
        isCounted = limit.admit(context.channel)
        context.fireChannelActive()
        if !isCounted { context.close(promise: nil) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if isCounted { limit.release(context.channel) }
        isCounted = false
        context.fireChannelInactive()
    }
}

/// Tells the limit when its HTTP/1.1 connection is busy with a request and when it is idle again.
private final class RequestActivityHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart

    private let limit: ConnectionLimit
    /// Requests read whose response has not ended.
    private var requestsInProgress = 0

    init(limit: ConnectionLimit) {
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            requestsInProgress += 1
            if requestsInProgress == 1 { limit.mark(context.channel, idle: false) }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            requestsInProgress = max(0, requestsInProgress - 1)
            if requestsInProgress == 0 { limit.mark(context.channel, idle: true) }
        }
        context.write(data, promise: promise)
    }
}
