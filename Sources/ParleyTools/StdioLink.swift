import Foundation
import Logging
import MCP

/// A stdio MCP server: a child process started with the configured command (looked up in `PATH` by `/usr/bin/env`)
/// whose standard input and output carry MCP, and whose standard error goes to Parley's. It gets a minimal environment
/// (`PATH`, `HOME`, `LANG`, `TMPDIR` from Parley's) plus the configured variables, so that Parley's own secrets are not
/// handed to it.
final class StdioLink: MCPLink {
    /// How long a process asked to stop may take before it is killed.
    static let stopGrace = Duration.seconds(3)

    let transport: any Transport
    private let process: Process
    let ended = Latch()
    // Kept so that their file descriptors stay open while the transport uses them.
    private let input: Pipe
    private let output: Pipe

    /// Starts `command` with `environment` added.
    init(command: [String], environment: [String: String], logger: Logger) throws {
        // Writing to the pipe of a process that died must fail with EPIPE, not end Parley with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let parent = ProcessInfo.processInfo.environment
        var variables = ["PATH": "/usr/local/bin:/usr/bin:/bin"]
        for name in ["PATH", "HOME", "LANG", "TMPDIR"] { variables[name] = parent[name] ?? variables[name] }
        variables.merge(environment) { $1 }
        (input, output, process) = (Pipe(), Pipe(), Process())
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["--"] + command
        process.environment = variables
        process.standardInput = input
        process.standardOutput = output
        process.terminationHandler = { [ended] _ in ended.open() }
        try process.run()
        transport = PipeTransport(
            reading: output.fileHandleForReading, writing: input.fileHandleForWriting, logger: logger)
    }

    func initialized(protocolVersion: String) async {}

    func waitUntilClosed() async -> String {
        await ended.wait()
        guard ended.isOpen else { return "stopped" }
        let how = process.terminationReason == .uncaughtSignal ? "was killed by signal" : "exited with status"
        return "the process \(how) \(process.terminationStatus)"
    }

    func close() async {
        if !ended.isOpen { process.terminate() }
        if await !ended.opens(within: Self.stopGrace) {
            kill(process.processIdentifier, SIGKILL)
            _ = await ended.opens(within: Self.stopGrace)
        }
        try? input.fileHandleForWriting.close()
        try? output.fileHandleForReading.close()
    }
}
