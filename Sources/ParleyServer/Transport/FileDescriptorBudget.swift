import Glibc

/// How the process's open-file limit is shared, so that it is never reached: a process out of descriptors cannot
/// accept, connect or open its database, and Linux's libdispatch stops the process when its thread-pool monitor cannot
/// open `/proc` (`_dispatch_workq_monitor_pools`). Each open connection takes one descriptor and each running reply one
/// more for its upstream connection; a reserve is kept for the database, the logs and the runtime.
public struct FileDescriptorBudget: Sendable, Equatable {
    /// The open-file limit the budget divides.
    public let limit: Int
    /// Whether clients may carry many replies on one connection (HTTP/2, over HTTPS).
    public let multiplexed: Bool

    /// A budget for `limit` descriptors; `multiplexed` when the server speaks HTTP/2.
    public init(limit: Int, multiplexed: Bool = false) {
        self.limit = max(0, limit)
        self.multiplexed = multiplexed
    }

    /// Descriptors kept for everything but connections: 64, and a twentieth of the limit.
    public var reserve: Int { 64 + limit / 20 }

    /// The most client connections open at once (at least one): half of what the reserve leaves, since over HTTP/1.1
    /// each reply needs a connection of its own; a tenth over HTTP/2, where a browser's streams share one connection.
    public var connections: Int { max(1, (limit - reserve) / (multiplexed ? 10 : 2)) }

    /// The most replies running at once, each with its upstream connection: the rest.
    public var replies: Int { max(1, limit - reserve - connections) }

    /// The budget of this process's open-file limit, after raising its soft limit to the hard one as servers do (a
    /// shell's default soft limit of 1,024 would hold about 470 streams).
    public static func raisingProcessLimit(multiplexed: Bool = false) -> FileDescriptorBudget {
        var limits = rlimit()
        guard getrlimit(resourceNoFile, &limits) == 0 else {
            return FileDescriptorBudget(limit: 1024, multiplexed: multiplexed)
        }
        if limits.rlim_cur < limits.rlim_max {
            var raised = limits
            raised.rlim_cur = limits.rlim_max
            if setrlimit(resourceNoFile, &raised) == 0 { limits = raised }
        }
        // An unlimited or huge hard limit is more than any budget needs; the kernel's own cap is far lower anyway.
        return FileDescriptorBudget(limit: Int(min(limits.rlim_cur, 1 << 24)), multiplexed: multiplexed)
    }

    private static var resourceNoFile: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }
}
