import Foundation

/// The measured server process, read from `/proc`: CPU time used and resident memory.
struct ServerProcess: Sendable {
    let pid: Int32

    /// User plus system CPU seconds the process has used so far.
    func cpuSeconds() -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let afterName = stat.range(of: ") ")?.upperBound
        else { return nil }
        // Fields after the command name start at field 3 (state); utime and stime are fields 14 and 15.
        let fields = stat[afterName...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Resident memory now, in megabytes.
    func residentMegabytes() -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
        else { return nil }
        return kilobytes / 1024
    }

    /// Samples the resident memory of `process` (when known) every 100 ms while `work` runs; returns the work's result
    /// and the peak.
    static func peakMemory<T: Sendable>(of process: ServerProcess?, during work: () async throws -> T) async rethrows
        -> (T, Double?)
    {
        let sampler = Task {
            var peak = process?.residentMegabytes()
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
                if let now = process?.residentMegabytes() { peak = max(peak ?? now, now) }
            }
            return peak
        }
        defer { sampler.cancel() }
        let result = try await work()
        sampler.cancel()
        return (result, await sampler.value)
    }
}
