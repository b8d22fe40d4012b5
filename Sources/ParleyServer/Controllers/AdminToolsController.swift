import Hummingbird
import ParleyCore

/// The MCP servers for admins (`GET /admin/tools`): each configured server, whether Parley is connected to it (or
/// why not), whether conversations have its tools on until their owners turn them off, and its tools with their
/// descriptions, which are on and which ask the user first (as `PARLEY_CONFIG`'s `mcp_servers` sets them).
struct AdminToolsController {
    let tools: (any ToolRunner)?
    let pages: PageRenderer

    /// Adds the route to the admin group.
    func addRoutes(to admin: RouterGroup<AppRequestContext>) {
        admin.get("tools") { _, context in
            let servers = await tools?.servers() ?? []
            let values: [String: Any] = [
                "nav_tools": true, "has_servers": !servers.isEmpty,
                "servers": servers.map { server -> [String: Any] in
                    [
                        "id": server.id, "name": server.name, "state": Self.stateText(server.state),
                        "connected": server.state == .connected, "on_by_default": server.enabledByDefault,
                        "tools": server.tools.map { tool -> [String: Any] in
                            [
                                "name": tool.name, "server_name": tool.serverName, "description": tool.description,
                                "enabled": tool.enabled, "confirm": tool.confirm,
                            ]
                        },
                    ]
                },
            ]
            return pages.page("admin_tools", title: "Tools", context: context, values: values)
        }
    }

    /// A server's state in words.
    static func stateText(_ state: MCPServerStatus.State) -> String {
        switch state {
        case .connecting: "connecting…"
        case .connected: "connected"
        case .unavailable(let reason): "unavailable: \(reason)"
        }
    }
}
