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
        func at(_ q: Double) -> Double {
            sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))]
        }
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
        /// The first few errors, one line each.
        var firstErrors: [String]
        var tokensPerSecond: Double
        var cpuSecondsPer1000Tokens: Double?
        var peakMemoryMB: Double?
        /// Parley's own part of the first tokens, as the server measures it (`AddedTimeHistogram`), milliseconds.
        var parleyShareP50: Double?
        var parleyShareP99: Double?
    }
    var idleMemoryMB: Double?
    var levels: [Level] = []
    var stop: Summary?

    /// A plain-text table of the results.
    var table: String {
        func ms(_ value: Double) -> String { String(format: "%8.2f", value) }
        func optional(_ value: Double?, _ format: String) -> String {
            value.map { String(format: format, $0) } ?? "       -"
        }
        var lines = [
            "server idle memory: " + optional(idleMemoryMB, "%.1f MB"),
            "streams | direct p50   p95    p99 | via Parley p50  p95    p99 | added p50  p99 | errors | tokens/s | CPU s/1k tok | peak MB | server-timed added p50  p99",
        ]
        for level in levels {
            lines.append(
                String(format: "%7d |", level.concurrency) + ms(level.direct.p50) + ms(level.direct.p95)
                    + ms(level.direct.p99)
                    + " |" + ms(level.relayed.p50) + ms(level.relayed.p95) + ms(level.relayed.p99)
                    + " |" + ms(level.relayed.p50 - level.direct.p50) + ms(level.relayed.p99 - level.direct.p99)
                    + String(format: " | %6d | %8.0f | ", level.errors, level.tokensPerSecond)
                    + optional(level.cpuSecondsPer1000Tokens, "%12.4f") + " | " + optional(level.peakMemoryMB, "%7.1f")
                    + " |            " + optional(level.parleyShareP50, "%8.2f")
                    + optional(level.parleyShareP99, "%8.2f"))
        }
        for level in levels where !level.firstErrors.isEmpty {
            lines += ["first errors at \(level.concurrency) streams:"] + level.firstErrors.map { "  " + $0 }
        }
        if let stop {
            lines.append(
                "stop → upstream closed (ms): p50 \(ms(stop.p50)) p95 \(ms(stop.p95)) p99 \(ms(stop.p99)) over \(stop.count)"
            )
        }
        return lines.joined(separator: "\n")
    }

    /// Writes the results as JSON.
    func write(to path: String) throws {
        try JSONFile.write(self, to: path)
    }
}

/// The JSON files the benches write.
enum JSONFile {
    /// Writes `value` as pretty JSON to `path` (creating its folder); a figure that is not a number is written as
    /// "nan".
    static func write(_ value: some Encodable, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        try encoder.encode(value).write(to: url)
    }
}
