import ParleyCore
import ParleyJSON

/// Tools in Chat Completions: `tools` of `function` type, an assistant message's `tool_calls`, and one `tool` message
/// per result.
extension OpenAICompatibleProvider {
    /// One message of a request whose turns carry tool results back: a turn, or one of those results.
    enum Message {
        case turn(ChatTurn)
        case toolResult(ToolResult)

        /// The messages of `turns`: each result of a turn that carries them becomes a message of its own.
        static func of(_ turns: [ChatTurn]) -> [Message] {
            turns.flatMap { turn in turn.toolResults.isEmpty ? [.turn(turn)] : turn.toolResults.map(Message.toolResult)
            }
        }
    }

    /// Writes `tools` as `function` tools, each schema as its `parameters`.
    static func writeTools(_ body: inout JSONText, _ tools: [ToolDefinition]) {
        body.field(
            "tools",
            objects: tools.map { tool in
                JSONText { entry in
                    entry.field("type", "function")
                    entry.field(
                        "function",
                        object: JSONText { function in
                            function.field("name", tool.name)
                            function.field("description", tool.description)
                            function.field(
                                "parameters", json: ToolJSON.object(tool.inputSchema, orElse: ToolJSON.emptySchema))
                        })
                }
            })
    }

    /// Writes an assistant turn that asked for calls: its text (or `null`) and its `tool_calls`, each call's arguments
    /// as the model wrote them.
    static func writeToolCalls(_ message: inout JSONText, _ turn: ChatTurn) {
        if turn.content.isEmpty { message.field(null: "content") } else { message.field("content", turn.content) }
        message.field(
            "tool_calls",
            objects: turn.toolCalls.map { call in
                JSONText { entry in
                    entry.field("id", call.id)
                    entry.field("type", "function")
                    entry.field(
                        "function",
                        object: JSONText {
                            $0.field("name", call.name); $0.field("arguments", call.arguments)
                        })
                }
            })
    }

    /// Writes a message: a turn, or a result as a `tool` message answering its call (an error's text after `Error: `,
    /// the wire having no flag for it).
    static func writeMessage(_ message: inout JSONText, _ item: Message) {
        switch item {
        case .turn(let turn): writeMessage(&message, turn)
        case .toolResult(let result):
            message.field("role", "tool")
            message.field("tool_call_id", result.callID)
            message.field("content", result.isError ? "Error: " + result.content : result.content)
        }
    }
}
