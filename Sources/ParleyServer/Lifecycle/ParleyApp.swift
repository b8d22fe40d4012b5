import Hummingbird
import Logging
import ParleyCore
import ServiceLifecycle

/// The whole running server: the HTTP application (which owns the upstream client) and the generation engine, shut
/// down in the order that lets running replies finish: first the replies (within their grace period, their streams
/// still open), then HTTP, then the upstream client; the database closes last.
public struct ParleyApp: Service {
    let http: Application<ChildTaskResponder<RouterResponder<AppRequestContext>>>
    let generations: GenerationService
    let database: any DatabaseHandle
    /// Every route, as "METHOD /path/{capture}".
    public let routes: [String]
    let logger: Logger

    /// Runs until a graceful shutdown (or cancellation) and everything has stopped.
    public func run() async throws {
        // A service group shuts its services down in reverse order.
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: http), .init(service: generations)],
                logger: logger))
        try await group.run()
        if let failure = await database.release() {
            logger.error("the database did not close cleanly", metadata: ["error": "\(failure)"])
        }
    }

    /// Runs until SIGTERM or SIGINT.
    public func runUntilSignalled() async throws {
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: self)],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
