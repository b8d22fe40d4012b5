import Hummingbird
import ParleyCore

/// Liveness: 200 once the database answers.
struct HealthController {
    let database: any DatabaseHandle

    /// Adds the route.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/healthz") { _, _ in
            guard await database.ping() else {
                return Response(
                    status: .serviceUnavailable, body: .init(byteBuffer: ByteBuffer(string: "database unavailable\n")))
            }
            return Response(
                status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "ok\n")))
        }
    }
}
