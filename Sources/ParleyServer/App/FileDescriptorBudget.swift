import Glibc

/// How the process's open-file limit is shared, so that it is never reached: a process out of descriptors cannot
/// accept, connect or open its database, and Linux's libdispatch stops the process when its thread-pool monitor cannot
/// open `/proc` (`_dispatch_workq_monitor_pools`). Each open connection takes one descriptor and each running reply one
/// more for its upstream connection; a reserve is kept for the database, the logs and the runtime.
public struct FileDescriptorBudget: Sendable, Equatable {
    /// The open-file limit the budget divides.
    public let limit: Int

    /// A budget for `limit` descriptors.
    public init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// Descriptors kept for everything but connections: 64, and a twentieth of the limit.
    public var reserve: Int { 64 + limit / 20 }

    /// The most client connections open at once: half of what the reserve leaves (at least one).
    public var connections: Int { max(1, (limit - reserve) / 2) }

    /// The most replies running at once, each with its upstream connection: the other half.
    public var replies: Int { max(1, (limit - reserve) / 2) }

    /// The budget of this process's open-file limit, after raising its soft limit to the hard one as servers do (a
    /// shell's default soft limit of 1,024 would hold about 470 streams).
    public static func raisingProcessLimit() -> FileDescriptorBudget {
        var limits = rlimit()
        guard getrlimit(resourceNoFile, &limits) == 0 else { return FileDescriptorBudget(limit: 1024) }
        if limits.rlim_cur < limits.rlim_max {
            var raised = limits
            raised.rlim_cur = limits.rlim_max
            if setrlimit(resourceNoFile, &raised) == 0 { limits = raised }
        }
        // An unlimited or huge hard limit is more than any budget needs; the kernel's own cap is far lower anyway.
        return FileDescriptorBudget(limit: Int(min(limits.rlim_cur, 1 << 24)))
    }

    private static var resourceNoFile: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }
}
