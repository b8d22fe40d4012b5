import Foundation
import ParleyCore
import ParleyTools
import Testing

/// The real MCP servers of Tests/MCP/tool_server.py (the official `mcp` package, from the project's `.venv-test`),
/// and a runner connected to them for the length of a test.
enum MCPTestServers {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let python = repositoryRoot + "/.venv-test/bin/python"
    static let script = repositoryRoot + "/Tests/MCP/tool_server.py"

    /// A stdio server with the id `id`; a `sleep` it starts or sees cancelled is noted in `cancelLog`.
    static func stdio(_ id: String = "tests", cancelLog: String? = nil) -> MCPServerSettings {
        MCPServerSettings(
            id: id, name: "Test tools",
            transport: .stdio(
                command: [python, script, "stdio"], environment: cancelLog.map { ["MCP_CANCEL_LOG": $0] } ?? [:]))
    }

    /// A fresh file path for a server's cancellation notes, removed by the caller.
    static func logPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("parley-mcp-\(UUID().uuidString).log").path
    }

    /// The lines of a cancellation log so far.
    static func lines(of path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Runs `body` with a runner for `servers`, kept running meanwhile and stopped afterwards; waits (at most 30 s)
    /// until every server is connected when `waitConnected`.
    static func withRunner(
        _ servers: [MCPServerSettings], callTimeout: Duration = .seconds(60), maxResultBytes: Int = 64 * 1_024,
        waitConnected: Bool = true, _ body: @Sendable (MCPToolRunner) async throws -> Void
    ) async throws {
        let runner = MCPToolRunner(servers: servers, callTimeout: callTimeout, maxResultBytes: maxResultBytes)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await runner.run() }
            defer { group.cancelAll() }
            if waitConnected {
                try await eventually("every server connected") {
                    await runner.servers().allSatisfy { $0.state == .connected }
                }
            }
            try await body(runner)
        }
    }

    /// Waits until `condition` holds, checking every 50 ms for at most `seconds`.
    static func eventually(
        _ what: String, seconds: Double = 30, _ condition: @Sendable () async throws -> Bool
    ) async throws {
        let clock = ContinuousClock()
        let end = clock.now + .milliseconds(Int(seconds * 1_000))
        // Bounded by the clock.
        while clock.now < end {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw MCPTestFailure("timed out waiting for: \(what)")
    }

    /// Calls `tool` (a model's name) with `arguments`.
    static func call(_ runner: MCPToolRunner, _ tool: String, _ arguments: String = "{}") async -> ToolResult {
        await runner.call(ToolCall(id: "call-\(UUID().uuidString.prefix(8))", name: tool, arguments: arguments))
    }
}

/// A test's own failure with a message.
struct MCPTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
