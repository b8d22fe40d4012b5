import ParleyCore

extension CompletionRequest {
    /// The tools to declare, and whether calls are forbidden: the offered tools; or, when none is offered but the
    /// history holds calls (the last step a limit allows), the history's tools, declared without parameters only so
    /// that vendors take the history (Anthropic refuses `tool_use` blocks without tools), with calls forbidden.
    var declaredTools: (tools: [ToolDefinition], callsForbidden: Bool) {
        guard tools.isEmpty else { return (tools, false) }
        var names: [String] = []
        for call in turns.lazy.flatMap(\.toolCalls) where !names.contains(call.name) { names.append(call.name) }
        let declared = names.map { ToolDefinition(name: $0, description: "", inputSchema: ToolJSON.emptySchema) }
        return (declared, !declared.isEmpty)
    }
}
