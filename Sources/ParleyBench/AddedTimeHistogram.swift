import AsyncHTTPClient
import NIOCore

/// Parley's own part of the first tokens of a run, as the server measures it (`parley_added_first_token_seconds` on
/// `/metrics`): from the request to the request on its way upstream, plus from the first text's arrival to its event
/// written. It leaves out the provider's wait and the other core's queue, which the end-to-end figures carry when the
/// mock and the load generator saturate it.
struct AddedTimeHistogram {
    static let metric = "parley_added_first_token_seconds"

    /// Cumulative sample counts by upper bound in seconds, lowest bound first (the last is infinity).
    private(set) var buckets: [(bound: Double, count: Double)] = []

    /// How many first tokens it holds.
    var count: Double { buckets.last?.count ?? 0 }

    /// The histogram in a Prometheus text exposition, its models' series added together (empty when it has none).
    init(exposition: String) {
        var counts: [Double: Double] = [:]
        for line in exposition.split(separator: "\n") where line.hasPrefix(Self.metric + "_bucket{") {
            guard let le = line.firstRange(of: #"le=""#)?.upperBound, let quote = line[le...].firstIndex(of: "\""),
                let count = line.split(separator: " ").last.flatMap({ Double($0) }),
                let bound = line[le..<quote] == "+Inf" ? Double.infinity : Double(line[le..<quote])
            else { continue }
            counts[bound, default: 0] += count
        }
        buckets = counts.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// An empty histogram.
    init() {}

    /// The histogram of the samples added since `earlier`.
    func subtracting(_ earlier: AddedTimeHistogram) -> AddedTimeHistogram {
        combined(with: earlier, sign: -1)
    }

    /// Adds the samples of `other`.
    mutating func add(_ other: AddedTimeHistogram) {
        self = buckets.isEmpty ? other : combined(with: other, sign: 1)
    }

    /// Each bucket's count plus `sign` times `other`'s count in the bucket of the same bound.
    private func combined(with other: AddedTimeHistogram, sign: Double) -> AddedTimeHistogram {
        var result = self
        result.buckets = buckets.map { bucket in
            (bucket.bound, bucket.count + sign * (other.buckets.first { $0.bound == bucket.bound }?.count ?? 0))
        }
        return result
    }

    /// The `q` quantile in milliseconds, interpolated within its bucket (as Prometheus's `histogram_quantile` does);
    /// nil without samples, infinity past the last finite bound.
    func quantile(_ q: Double) -> Double? {
        guard count > 0 else { return nil }
        let rank = q * count
        var lower = (bound: 0.0, count: 0.0)
        for bucket in buckets {
            if bucket.count >= rank {
                guard bucket.bound.isFinite else { return .infinity }
                let share = bucket.count > lower.count ? (rank - lower.count) / (bucket.count - lower.count) : 1
                return (lower.bound + (bucket.bound - lower.bound) * share) * 1000
            }
            lower = bucket
        }
        return nil
    }

    /// The histogram the server at `parley` reports at `instant` (empty when it reports none).
    static func read(_ client: HTTPClient, parley: String, at instant: ContinuousClock.Instant = .now) async throws
        -> AddedTimeHistogram
    {
        try? await Task.sleep(until: instant)
        let response = try await client.execute(HTTPClientRequest(url: parley + "/metrics"), timeout: .seconds(10))
        return AddedTimeHistogram(exposition: String(buffer: try await response.body.collect(upTo: 16 << 20)))
    }
}
