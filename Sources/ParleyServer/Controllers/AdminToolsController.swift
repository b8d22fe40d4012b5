import Hummingbird
import ParleyCore

/// The MCP servers for admins (`GET /admin/tools`): each configured server, whether Parley is connected to it (or
/// why not), whether conversations have its tools on until their owners turn them off, and its tools with their
/// descriptions, which are on and which ask the user first; `POST /admin/tools` changes those choices (kept, and
/// winning over `PARLEY_CONFIG`'s from then on).
struct AdminToolsController {
    let tools: (any ToolRunner)?
    let choices: any ToolChoiceStore
    let pages: PageRenderer

    /// Adds the route to the admin group.
    func addRoutes(to admin: RouterGroup<AppRequestContext>) {
        admin.post("tools") { request, context in
            let form = try await request.decode(as: ChoiceForm.self, context: context)
            let choice = try await checked(form)
            try await choices.setToolChoice(choice)
            tools?.apply(choice)
            return request.isPlainForm ? .seeOther("/admin/tools") : Response(status: .noContent)
        }
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
                                "name": tool.name, "server_id": server.id, "server_name": tool.serverName,
                                "description": tool.description,
                                "enabled": tool.enabled, "confirm": tool.confirm,
                            ]
                        },
                    ]
                },
            ]
            return pages.page("admin_tools", title: "Tools", context: context, values: values)
        }
    }

    /// The admin's form: a server, one of its tools (none: the server itself), and the checkboxes.
    struct ChoiceForm: Decodable {
        var server: String?
        var tool: String?
        var enabled: FormFlag?
        var confirm: FormFlag?
    }

    /// The choice a form makes, for a configured server and a tool it lists (404 otherwise).
    private func checked(_ form: ChoiceForm) async throws -> StoredToolChoice {
        let servers = await tools?.servers() ?? []
        guard let server = servers.first(where: { $0.id == form.server }) else { throw AppError.notFound }
        let tool = form.tool ?? ""
        guard tool.isEmpty || server.tools.contains(where: { $0.serverName == tool }) else { throw AppError.notFound }
        return StoredToolChoice(
            server: server.id, tool: tool, enabled: form.enabled.isOn, confirm: !tool.isEmpty && form.confirm.isOn)
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
