import AsyncHTTPClient
import Foundation
import Logging
import MCP
import ParleyCore

/// The `ToolRunner` of MCP servers: one connection per configured server, kept up by `run()` (a service of the
/// application) until it is cancelled; tools named `serverid__toolname`; each call bounded by `callTimeout` and its
/// result's text by `maxResultBytes`.
public final class MCPToolRunner: ToolRunner {
    /// The default per-call timeout (`PARLEY_TOOL_TIMEOUT_SECONDS`).
    public static let defaultCallTimeout = Duration.seconds(60)
    /// The default bound of a result's text (`PARLEY_TOOL_RESULT_MAX_KB`).
    public static let defaultMaxResultBytes = 64 * 1_024

    private let connections: [String: MCPServerConnection]
    private let order: [String]
    /// The admin's choices, `PARLEY_CONFIG`'s then the admin page's.
    private let book: ToolChoiceBook
    private let maxResultBytes: Int

    /// A runner for `servers` (ids unique, as `MCPServersConfig` checks); HTTP servers are reached through `http`.
    public init(
        servers: [MCPServerSettings], callTimeout: Duration = defaultCallTimeout,
        maxResultBytes: Int = defaultMaxResultBytes, http: HTTPClient = .shared,
        logger: Logger = Logger(label: "parley.tools")
    ) {
        connections = Dictionary(
            servers.map {
                ($0.id, MCPServerConnection(settings: $0, http: http, callTimeout: callTimeout, logger: logger))
            }, uniquingKeysWith: { first, _ in first })
        order = servers.map(\.id)
        book = ToolChoiceBook(servers)
        self.maxResultBytes = maxResultBytes
    }

    /// Keeps every server connected until the task is cancelled; then stops them all and returns.
    public func run() async {
        await withDiscardingTaskGroup { group in
            for connection in connections.values {
                group.addTask { await connection.run() }
            }
        }
    }

    public func tools(servers: [String]) async -> [ToolDefinition] {
        var definitions: [ToolDefinition] = []
        var names: Set<String> = []
        for id in order where servers.contains(id) {
            guard let connection = connections[id] else { continue }
            for tool in await connection.currentTools where book.choice(server: id, tool: tool.name).enabled {
                let name = ToolNames.exposed(server: id, tool: tool.name)
                guard names.insert(name).inserted else { continue }
                definitions.append(
                    ToolDefinition(
                        name: name, description: tool.description ?? "", inputSchema: Self.json(tool.inputSchema)))
            }
        }
        return definitions
    }

    public func call(_ call: ToolCall) async -> ToolResult {
        func failure(_ message: String) -> ToolResult {
            ToolResult(callID: call.id, name: call.name, content: message, isError: true)
        }
        guard let id = ToolNames.serverID(of: call.name), let connection = connections[id],
            let tool = await connection.currentTools.first(where: {
                ToolNames.exposed(server: id, tool: $0.name) == call.name
            })
        else {
            return failure("There is no tool \(call.name), or its server is not connected.")
        }
        guard book.choice(server: id, tool: tool.name).enabled else {
            return failure("The tool \(call.name) is turned off.")
        }
        guard let arguments = Self.arguments(call.arguments) else {
            return failure("The arguments are not a JSON object.")
        }
        do {
            let result = try await connection.call(tool.name, arguments: arguments)
            let text = ToolResultText.text(of: result.content, maxBytes: maxResultBytes)
            return ToolResult(callID: call.id, name: call.name, content: text, isError: result.isError ?? false)
        } catch {
            return failure(error.message)
        }
    }

    public func needsConfirmation(_ toolName: String) -> Bool {
        book.confirms(toolName)
    }

    public func setChoice(server: String, tool: String, enabled: Bool, confirm: Bool) {
        book.set(MCPServerSettings.ToolChoice(enabled: enabled, confirm: confirm), server: server, tool: tool)
    }

    public func setEnabledByDefault(_ on: Bool, server: String) {
        book.setEnabledByDefault(on, server: server)
    }

    public func servers() async -> [MCPServerStatus] {
        var statuses: [MCPServerStatus] = []
        for id in order {
            guard let connection = connections[id] else { continue }
            var status = await connection.status()
            status.enabledByDefault = book.enabledByDefault(server: id)
            for index in status.tools.indices {
                let choice = book.choice(server: id, tool: status.tools[index].serverName)
                status.tools[index].enabled = choice.enabled
                status.tools[index].confirm = choice.confirm
            }
            statuses.append(status)
        }
        return statuses
    }

    /// A JSON Schema as JSON text (keys sorted, so that a request's tools read the same each time).
    private static func json(_ schema: Value) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(schema)).map { String(decoding: $0, as: UTF8.self) } ?? #"{"type":"object"}"#
    }

    /// A model's arguments (JSON object text; empty is no arguments) as MCP values.
    private static func arguments(_ text: String) -> [String: Value]? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return [:] }
        return try? JSONDecoder().decode([String: Value].self, from: Data(trimmed.utf8))
    }
}
