/// An admin's choice kept for an MCP server's tool (`tool` empty: for the server, `enabled` then saying whether
/// conversations have it on until their owners choose).
public struct StoredToolChoice: Sendable, Equatable {
    public var server: String
    public var tool: String
    public var enabled: Bool
    public var confirm: Bool

    /// Creates a choice.
    public init(server: String, tool: String, enabled: Bool, confirm: Bool = false) {
        self.server = server
        self.tool = tool
        self.enabled = enabled
        self.confirm = confirm
    }
}

/// The admin page's choices for MCP servers and their tools, which override `PARLEY_CONFIG`'s from the next start on
/// too.
public protocol ToolChoiceStore: Sendable {
    /// Every kept choice.
    func toolChoices() async throws(StoreError) -> [StoredToolChoice]
    /// Keeps a choice, replacing the one for the same server and tool.
    func setToolChoice(_ choice: StoredToolChoice) async throws(StoreError)
}
