import Metrics
import ParleyCore
import Prometheus

/// The process-wide Prometheus registry behind swift-metrics, bootstrapped once on first use.
enum PrometheusExport {
    /// The registry every metric of this process lands in.
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000, 120_000,
        ]
        .map { Duration.milliseconds($0) }
        // Parley's part of a first token is a millisecond or so: buckets of a tenth of one up to 2 ms, wider beyond.
        factory.durationHistogramBuckets[GenerationMetrics.addedFirstTokenLabel] =
            [
                100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1250, 1500, 1750, 2000, 2500, 3000, 4000, 5000, 7500,
                10_000,
                25_000, 50_000, 100_000, 250_000, 1_000_000,
            ].map { Duration.microseconds($0) }
        MetricsSystem.bootstrap(factory)
        return registry
    }()
}
