import ParleyCore
import ServiceLifecycle

/// Runs the generation manager as a service of the application, stopping its replies on graceful shutdown.
struct GenerationService: Service {
    let manager: GenerationManager

    func run() async throws {
        await withGracefulShutdownHandler {
            await manager.run()
        } onGracefulShutdown: {
            manager.shutdown()
        }
    }
}
