/// A configured MCP server as the admin page shows it: whether Parley is connected to it (or why not) and the tools
/// it lists, each with the name models see, its description and the admin's choices.
public struct MCPServerStatus: Sendable, Equatable {
    /// Whether the server can be used now.
    public enum State: Sendable, Equatable {
        /// Being started or connected to for the first time.
        case connecting
        case connected
        /// Not connected, with a short reason (the process exited, the address refused, …); Parley keeps retrying.
        case unavailable(String)
    }

    /// One tool of the server.
    public struct Tool: Sendable, Equatable {
        /// The name models see (`serverid__toolname`) and the server's own.
        public var name: String
        public var serverName: String
        public var description: String
        public var enabled: Bool
        public var confirm: Bool

        /// Creates a tool entry.
        public init(name: String, serverName: String, description: String, enabled: Bool, confirm: Bool) {
            self.name = name
            self.serverName = serverName
            self.description = description
            self.enabled = enabled
            self.confirm = confirm
        }
    }

    public var id: String
    public var name: String
    public var enabledByDefault: Bool
    public var state: State
    public var tools: [Tool]

    /// Creates a status.
    public init(id: String, name: String, enabledByDefault: Bool, state: State, tools: [Tool]) {
        self.id = id
        self.name = name
        self.enabledByDefault = enabledByDefault
        self.state = state
        self.tools = tools
    }
}
