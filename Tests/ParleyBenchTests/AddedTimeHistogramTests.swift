import Testing

@testable import ParleyBench

/// Reading Parley's own part of the first tokens from `/metrics`.
@Suite struct AddedTimeHistogramTests {
    /// An exposition with two models' series of the histogram, and a metric of another name.
    static func exposition(_ a: [Int], _ b: [Int]) -> String {
        let bounds = ["0.0005", "0.001", "0.002", "+Inf"]
        var lines = [
            "# TYPE parley_added_first_token_seconds histogram",
            #"parley_time_to_first_token_seconds_bucket{le="0.001"} 99"#,
        ]
        for (index, bound) in bounds.enumerated() {
            lines.append(#"parley_added_first_token_seconds_bucket{model="a",le="\#(bound)"} \#(a[index])"#)
            lines.append(#"parley_added_first_token_seconds_bucket{model="b",le="\#(bound)"} \#(b[index])"#)
        }
        return lines.joined(separator: "\n")
    }

    @Test(
        "the models' series add up, a run is the difference of two readings, and quantiles interpolate within buckets")
    func readsSubtractsAndInterpolates() {
        let before = AddedTimeHistogram(exposition: Self.exposition([1, 1, 1, 1], [0, 0, 0, 0]))
        let after = AddedTimeHistogram(exposition: Self.exposition([3, 6, 9, 11], [2, 5, 10, 10]))
        let run = after.subtracting(before)
        #expect(run.count == 20)
        // 20 samples: 4 under 0.5 ms, 6 more under 1 ms, 8 more under 2 ms, 2 above.
        #expect(run.quantile(0.2) == 0.5)
        #expect(abs(run.quantile(0.3)! - (0.5 + 0.5 * 2 / 6)) < 1e-9)
        #expect(run.quantile(0.5) == 1)
        #expect(run.quantile(0.99) == .infinity)
        #expect(AddedTimeHistogram(exposition: "").quantile(0.5) == nil)
    }
}
