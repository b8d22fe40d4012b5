import HummingbirdCore
import Logging
import NIOCore

/// An accepted connection that the connection limit counts before anything else sees it (before TLS, for HTTPS), and
/// that is then set up and handled by the wrapped channel.
struct AdmittedChannel<Base: ServerChildChannel>: WrappingChildChannel {
    typealias Value = Base.Value

    private let limit: ConnectionLimit
    let base: Base

    /// Wraps the channel that handles the connection.
    init(limit: ConnectionLimit, _ base: Base) {
        self.limit = limit
        self.base = base
    }

    /// Puts the limit's admission first in the pipeline, then sets up the wrapped channel.
    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(limit.admissionHandler())
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger)
    }
}
