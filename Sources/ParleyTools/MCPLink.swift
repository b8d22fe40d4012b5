import MCP

/// An open way to one MCP server: the transport its client speaks over, and what tells that the server went away.
protocol MCPLink: Sendable {
    var transport: any Transport { get }

    /// Opened when the server goes away.
    var ended: Latch { get }

    /// Tells the link the protocol version the server agreed to (HTTP sends it with every request).
    func initialized(protocolVersion: String) async

    /// Returns once the server is gone (the process exited, the address stopped answering, the session expired), or
    /// when the task is cancelled; meanwhile it does the link's own work (an HTTP link listens for the server's
    /// messages). The answer says why, for the admin page.
    func waitUntilClosed() async -> String

    /// Ends the link: a process is asked to stop, then killed.
    func close() async
}
