import Metrics
import Prometheus

/// The process-wide Prometheus registry behind swift-metrics, bootstrapped once on first use.
enum PrometheusExport {
    /// The registry every metric of this process lands in.
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000, 120_000]
            .map { Duration.milliseconds($0) }
        MetricsSystem.bootstrap(factory)
        return registry
    }()
}
