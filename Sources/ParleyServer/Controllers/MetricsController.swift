import Hummingbird
import ParleyCore

/// `GET /metrics` in the Prometheus text format: the generation engine's gauges.
struct MetricsController {
    let generations: GenerationManager

    /// Adds the route.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/metrics") { _, _ in
            let text = """
                # HELP parley_generations_running Replies being generated now.
                # TYPE parley_generations_running gauge
                parley_generations_running \(generations.runningCount)
                # HELP parley_event_streams_open Open conversation event streams.
                # TYPE parley_event_streams_open gauge
                parley_event_streams_open \(generations.subscriberCount)

                """
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(string: text)))
        }
    }
}
