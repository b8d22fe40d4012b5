import Foundation
import ParleyCore
import ParleyProviders
import ParleyTools
import ServiceLifecycle

/// Keeps the MCP servers of `PARLEY_CONFIG` connected as a service of the application, until a graceful shutdown.
struct ToolRunnerService: Service {
    let runner: MCPToolRunner

    func run() async {
        await cancelWhenGracefulShutdown { await runner.run() }
    }

    /// The MCP servers configured in the file at `configPath` (none without a file, or without `mcp_servers`); a bad
    /// entry stops the start with the file and the place named.
    static func servers(configPath: String?) throws -> [MCPServerSettings] {
        guard let configPath else { return [] }
        let data = try Data(contentsOf: URL(fileURLWithPath: configPath))
        do {
            return try MCPServersConfig.parse(configFile: data)
        } catch {
            throw ProviderConfigError(file: configPath, problem: error.description)
        }
    }
}
