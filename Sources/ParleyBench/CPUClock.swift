import Foundation

/// Clocks the microbenchmarks read: this process's CPU time.
enum CPUClock {
    /// CPU seconds this process has used.
    static func processSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
