import Foundation

/// Tests/MCP/tool_server.py serving streamable HTTP on a free loopback port, started for a test and killed after it.
struct HTTPToolServer: Sendable {
    let port: Int

    /// The MCP address.
    var url: String { "http://127.0.0.1:\(port)/mcp" }

    /// Runs `body` with a server that requires `Authorization: Bearer token`, stopped afterwards whatever happened.
    static func with(token: String, _ body: (HTTPToolServer) async throws -> Void) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: MCPTestServers.python)
        process.arguments = [MCPTestServers.script, "http", token]
        process.environment = ["PATH": "/usr/bin:/bin"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let line = try await firstLine(of: output.fileHandleForReading)
        guard let port = Int(line.dropFirst("port ".count).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw MCPTestFailure("the HTTP tool server did not say its port: \(line)")
        }
        try await body(HTTPToolServer(port: port))
    }

    /// The first line `handle` gives, read off the cooperative threads (the read blocks); fails at end of file.
    private static func firstLine(of handle: FileHandle) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                var line = Data()
                // Bounded: each pass reads more, and end of file ends it.
                while !line.contains(UInt8(ascii: "\n")) {
                    let chunk = handle.availableData
                    guard !chunk.isEmpty else {
                        return continuation.resume(throwing: MCPTestFailure("the tool server exited before serving"))
                    }
                    line += chunk
                }
                continuation.resume(returning: String(decoding: line, as: UTF8.self))
            }
        }
    }
}
