import ParleyCore

/// The tool calls of a reply whose pieces stream apart (OpenAI's `tool_calls` deltas, Anthropic's `tool_use` blocks),
/// gathered by their index in the reply until each is complete; a call whose arguments never came has `{}`.
struct StreamedToolCalls: Sendable {
    private var calls: [(index: Int, call: ToolCall)] = []

    /// Whether no call is being gathered.
    var isEmpty: Bool { calls.isEmpty }

    /// The index of the call gathered last, if any.
    var lastIndex: Int? { calls.last?.index }

    /// Starts the call at `index`, or adds to it: an id or name replaces the one held, arguments are appended.
    mutating func add(index: Int, id: String? = nil, name: String? = nil, arguments: String? = nil) {
        guard let position = calls.firstIndex(where: { $0.index == index }) else {
            calls.append((index, ToolCall(id: id ?? "", name: name ?? "", arguments: arguments ?? "")))
            return
        }
        if let id, !id.isEmpty { calls[position].call.id = id }
        if let name, !name.isEmpty { calls[position].call.name = name }
        if let arguments { calls[position].call.arguments += arguments }
    }

    /// Removes and returns the call at `index`, complete.
    mutating func take(index: Int) -> ToolCall? {
        guard let position = calls.firstIndex(where: { $0.index == index }) else { return nil }
        return Self.completed(calls.remove(at: position).call)
    }

    /// Removes and returns every call, complete, in the order of their indexes.
    mutating func takeAll() -> [ToolCall] {
        defer { calls.removeAll() }
        return calls.sorted { $0.index < $1.index }.map { Self.completed($0.call) }
    }

    /// `call` with `{}` for arguments that never came.
    private static func completed(_ call: ToolCall) -> ToolCall {
        var call = call
        if call.arguments.allSatisfy(\.isWhitespace) { call.arguments = "{}" }
        return call
    }
}
