import ParleyCore
import Synchronization

/// The admin's choices for the MCP servers' tools: `PARLEY_CONFIG`'s, then as the admin page changes them. A tool no
/// choice names is on and asks nothing first.
final class ToolChoiceBook: Sendable {
    /// One server's choices.
    private struct Server: Sendable {
        var enabledByDefault: Bool
        var tools: [String: MCPServerSettings.ToolChoice]
    }

    private let servers: Mutex<[String: Server]>

    /// The choices `settings` make.
    init(_ settings: [MCPServerSettings]) {
        servers = Mutex(
            Dictionary(
                settings.map { ($0.id, Server(enabledByDefault: $0.enabledByDefault, tools: $0.tools)) },
                uniquingKeysWith: { first, _ in first }))
    }

    /// The choice for the tool `tool` (the server's own name) of server `server`.
    func choice(server: String, tool: String) -> MCPServerSettings.ToolChoice {
        servers.withLock { $0[server]?.tools[tool] } ?? MCPServerSettings.ToolChoice()
    }

    /// Whether conversations have the server on until their owners choose.
    func enabledByDefault(server: String) -> Bool {
        servers.withLock { $0[server]?.enabledByDefault } ?? false
    }

    /// Whether the tool models see as `exposedName` asks the user first.
    func confirms(_ exposedName: String) -> Bool {
        servers.withLock { servers in
            servers.contains { id, server in
                server.tools.contains { $0.value.confirm && ToolNames.exposed(server: id, tool: $0.key) == exposedName }
            }
        }
    }

    /// Sets a tool's choice; a server not configured is ignored.
    func set(_ choice: MCPServerSettings.ToolChoice, server: String, tool: String) {
        servers.withLock { $0[server]?.tools[tool] = choice }
    }

    /// Sets whether conversations have the server on until their owners choose.
    func setEnabledByDefault(_ on: Bool, server: String) {
        servers.withLock { $0[server]?.enabledByDefault = on }
    }
}
