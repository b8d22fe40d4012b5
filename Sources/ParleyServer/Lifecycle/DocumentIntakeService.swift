import ParleyDocuments
import ServiceLifecycle

/// Runs the document intake's reading as a service of the application, until a graceful shutdown.
struct DocumentIntakeService: Service {
    let intake: DocumentIntake

    func run() async {
        await cancelWhenGracefulShutdown { await intake.run() }
    }
}
