import Foundation

/// Reads a process's memory figures from Linux's `/proc/<pid>/status`.
enum ProcessMemory {
    /// The resident set size of process `pid`, in kilobytes (nil when it cannot be read).
    static func residentKilobytes(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line.flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true)[1]) }
    }
}
