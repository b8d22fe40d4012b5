import Logging
import ServiceLifecycle

/// Runs `service` while `body` runs, then shuts it down gracefully and waits for it, cancelling it only if it is still
/// running after `grace`. Cancelling a NIO server outright traps ("Deinited NIOAsyncWriter without calling finish()")
/// when a connection it has accepted is still queued; a graceful shutdown serves that connection first. Returns what
/// `body` returns or throws what it throws; errors the service throws while stopping are not reported.
public func withRunningService<Result: Sendable>(
    _ service: some Service, logger: Logger, grace: Duration = .seconds(10),
    _ body: () async throws -> Result
) async throws -> Result {
    let services = ServiceGroup(configuration: .init(services: [.init(service: service)], logger: logger))
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await services.run() }
        let outcome: Swift.Result<Result, any Error>
        do {
            outcome = .success(try await body())
        } catch {
            outcome = .failure(error)
        }
        await services.triggerGracefulShutdown()
        group.addTask { try? await Task.sleep(for: grace) }
        // Whichever ends first, the service or the grace period, the other is no longer needed.
        _ = try? await group.next()
        group.cancelAll()
        try? await group.waitForAll()
        return try outcome.get()
    }
}
