/// An MCP server as the admin configured it (`mcp_servers` in `PARLEY_CONFIG`): its id (1 to 32 letters, digits, `-`
/// or `_`, without `__`, the prefix of its tools' names as models see them), its display name, how to reach it, whether
/// its tools are on in a conversation until the user turns them off, and per-tool choices: a tool not `enabled` is never
/// offered to a model, and a tool with `confirm` waits for the user's Allow before each call. Tools the server lists
/// and the settings do not name are enabled and need no confirmation.
public struct MCPServerSettings: Sendable, Equatable {
    /// How Parley reaches a server: a child process speaking MCP on its standard input and output, started with
    /// `command` (the program, looked up in `PATH`, then its arguments) and `environment` added to a minimal one; or
    /// streamable HTTP at `url`, each request carrying `headers` (an `Authorization` token, say).
    public enum Transport: Sendable, Equatable {
        case stdio(command: [String], environment: [String: String])
        case http(url: String, headers: [String: String])
    }

    /// The admin's choices for one tool, by the name the server gives it.
    public struct ToolChoice: Sendable, Equatable {
        public var enabled: Bool
        public var confirm: Bool

        /// Creates a choice.
        public init(enabled: Bool = true, confirm: Bool = false) {
            self.enabled = enabled
            self.confirm = confirm
        }
    }

    public var id: String
    public var name: String
    public var transport: Transport
    public var enabledByDefault: Bool
    public var tools: [String: ToolChoice]

    /// Creates settings.
    public init(
        id: String, name: String, transport: Transport, enabledByDefault: Bool = true, tools: [String: ToolChoice] = [:]
    ) {
        self.id = id
        self.name = name
        self.transport = transport
        self.enabledByDefault = enabledByDefault
        self.tools = tools
    }

    /// The admin's choice for the tool the server names `tool` (enabled, no confirmation, when not configured).
    public func choice(for tool: String) -> ToolChoice {
        tools[tool] ?? ToolChoice()
    }
}
