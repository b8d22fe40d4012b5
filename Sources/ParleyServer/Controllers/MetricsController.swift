import Hummingbird
import ParleyCore

/// `GET /metrics` in the Prometheus text format: everything recorded through swift-metrics (requests by route and
/// status, first-token time, reply duration, tokens, cost, upstream errors, retries, save latency) plus the engine's
/// gauges and the store's. With `PARLEY_METRICS_TOKEN` set, only requests with that bearer token get them; without,
/// only requests made directly from this machine (a loopback peer, no proxy's `X-Forwarded-For`): they hold token and
/// cost counts per model.
struct MetricsController {
    let generations: GenerationManager
    let database: any DatabaseHandle
    let token: String?

    /// Adds the route.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/metrics") { request, context in
            if let token, !RandomToken.constantTimeEqual(request.headers[.authorization] ?? "", "Bearer " + token) {
                // A scraper, not a person: a plain 401, never the sign-in redirect of pages.
                return Response(status: .unauthorized, headers: [.wwwAuthenticate: "Bearer"])
            }
            if token == nil, !Self.isDirectFromLoopback(request, context) {
                return Response(
                    status: .forbidden, headers: [.contentType: "text/plain; charset=utf-8"],
                    body: .init(
                        byteBuffer: ByteBuffer(
                            string: "Set PARLEY_METRICS_TOKEN to scrape /metrics from another machine.\n")))
            }
            // The gauges are read from this server's manager and store at scrape time, not kept in the process-wide
            // registry (a test process runs several servers).
            var text = PrometheusExport.registry.emitToString()
            text += """
                # HELP parley_generations_running Replies being generated now.
                # TYPE parley_generations_running gauge
                parley_generations_running \(generations.runningCount)
                # HELP parley_event_streams_open Open conversation event streams.
                # TYPE parley_event_streams_open gauge
                parley_event_streams_open \(generations.subscriberCount)
                # HELP parley_store_writes_waiting Store writes waiting for the transaction that will take them.
                # TYPE parley_store_writes_waiting gauge
                parley_store_writes_waiting \(database.waitingWrites)

                """
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: text)))
        }
    }

    /// Whether the request came straight from this machine: a loopback peer that forwarded nothing.
    static func isDirectFromLoopback(_ request: Request, _ context: AppRequestContext) -> Bool {
        guard request.headers[ClientAddressMiddleware.forwardedFor] == nil,
            let bytes = TrustedProxies.addressBytes(context.peerAddress)
        else { return false }
        return bytes.count == 4 ? bytes[0] == 127 : bytes == Array(repeating: 0, count: 15) + [1]
    }
}
