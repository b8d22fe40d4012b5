import Foundation

/// Percentiles of a set of measurements, in milliseconds.
struct Summary: Codable {
    var count: Int
    var p50: Double
    var p95: Double
    var p99: Double

    /// Summarises samples.
    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        func at(_ q: Double) -> Double { sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))] }
        count = sorted.count
        p50 = at(0.5)
        p95 = at(0.95)
        p99 = at(0.99)
    }
}

/// Everything one bench run measured.
struct BenchResults: Codable {
    /// First-token times at one concurrency level.
    struct Level: Codable {
        var concurrency: Int
        var direct: Summary
        var relayed: Summary
        var errors: Int
    }
    var levels: [Level] = []
    var stop = Summary([])

    /// A plain-text table of the results.
    var table: String {
        func ms(_ value: Double) -> String { String(format: "%8.2f", value) }
        var lines = ["streams | direct p50   p95    p99 | via Parley p50  p95    p99 | added p50 | errors"]
        for level in levels {
            lines.append(String(format: "%7d |", level.concurrency) + ms(level.direct.p50) + ms(level.direct.p95) + ms(level.direct.p99)
                + " |" + ms(level.relayed.p50) + ms(level.relayed.p95) + ms(level.relayed.p99)
                + " |" + ms(level.relayed.p50 - level.direct.p50) + "  | \(level.errors)")
        }
        lines.append("stop → upstream closed (ms): p50 \(ms(stop.p50)) p95 \(ms(stop.p95)) p99 \(ms(stop.p99)) over \(stop.count)")
        return lines.joined(separator: "\n")
    }

    /// Writes the results as JSON.
    func write(to path: String) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: url)
    }
}
