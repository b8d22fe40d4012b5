/// What the engine uses to offer tools to a model and run the calls it asks for; `MCPToolRunner` (ParleyTools) is the
/// real one. Tool names are the models' (`serverid__toolname`, unique, vendor-safe).
public protocol ToolRunner: Sendable {
    /// The enabled tools of the servers with these ids that are connected now, as models see them.
    func tools(servers: [String]) async -> [ToolDefinition]

    /// Runs `call` and answers its result; never throws: an unknown tool, a server that is down, a timeout, a server's
    /// error and the tool's own error are all a result with `isError` and a short message. A cancelled task tells the
    /// server (MCP `notifications/cancelled`) and returns promptly.
    func call(_ call: ToolCall) async -> ToolResult

    /// Whether the user must allow each call of the tool with this (model's) name before it runs.
    func needsConfirmation(_ toolName: String) -> Bool

    /// Every configured server with its state and tools, for the admin page.
    func servers() async -> [MCPServerStatus]

    /// Sets the admin's choice for a tool (the server's own name for it): whether models are offered it, and whether
    /// each call asks the user first.
    func setChoice(server: String, tool: String, enabled: Bool, confirm: Bool)

    /// Sets whether conversations have a server's tools on until their owners choose.
    func setEnabledByDefault(_ on: Bool, server: String)
}

extension ToolRunner {
    /// Applies an admin's kept choice: a tool's (on, asks first), or a server's (on until a conversation chooses).
    public func apply(_ choice: StoredToolChoice) {
        if choice.tool.isEmpty {
            setEnabledByDefault(choice.enabled, server: choice.server)
        } else {
            setChoice(server: choice.server, tool: choice.tool, enabled: choice.enabled, confirm: choice.confirm)
        }
    }
}
