import ParleyCore

/// The MCP servers a conversation can turn on, as the `tool_choices` partial lists them, and the checks of a choice.
struct ToolServerChoices {
    let tools: (any ToolRunner)?

    /// Each configured server as a checkbox, ticked when the conversation has it on (`chosen`, or the servers on by
    /// default when the conversation has not chosen).
    func choices(chosen: [String]?) async -> [[String: Any]] {
        guard let tools else { return [] }
        return await tools.servers().map { server in
            [
                "id": server.id, "name": server.name,
                "checked": chosen?.contains(server.id) ?? server.enabledByDefault,
            ]
        }
    }

    /// `ids`, checked to be configured servers (422 `unknown_tool_server` otherwise), each once.
    func checked(_ ids: [String]) async throws(AppError) -> [String] {
        let known = Set(await tools?.servers().map(\.id) ?? [])
        guard let unknown = ids.first(where: { !known.contains($0) }) else {
            return ids.enumerated().filter { !ids[..<$0.offset].contains($0.element) }.map(\.element)
        }
        throw AppError(
            .unprocessableContent, code: "unknown_tool_server",
            message: "There is no tool server “\(unknown)”; an admin lists them under Admin → Tools.")
    }
}
