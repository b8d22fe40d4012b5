import ParleyCore
import ParleyJSON

/// Tools in the Messages API: `tools` with an `input_schema`, `tool_use` blocks in an assistant message, and
/// `tool_result` blocks in the user message after it.
extension AnthropicProvider {
    /// Writes `tools`, each schema as its `input_schema`.
    static func writeTools(_ body: inout JSONText, _ tools: [ToolDefinition]) {
        body.field(
            "tools",
            objects: tools.map { tool in
                JSONText { entry in
                    entry.field("name", tool.name)
                    entry.field("description", tool.description)
                    entry.field("input_schema", json: ToolJSON.object(tool.inputSchema, orElse: ToolJSON.emptySchema))
                }
            })
    }

    /// The content blocks of an assistant turn that asked for calls: its text, if any, then a `tool_use` block per
    /// call, whose `input` is the call's arguments (`{}` when they are not a JSON object).
    static func toolUseBlocks(_ turn: ChatTurn) -> [JSONText] {
        let text =
            turn.content.isEmpty
            ? []
            : [
                JSONText {
                    $0.field("type", "text"); $0.field("text", turn.content)
                }
            ]
        return text
            + turn.toolCalls.map { call in
                JSONText { block in
                    block.field("type", "tool_use")
                    block.field("id", call.id)
                    block.field("name", call.name)
                    block.field("input", json: ToolJSON.object(call.arguments))
                }
            }
    }

    /// The content blocks of a user turn carrying results back: a `tool_result` block per result, marked `is_error`
    /// when the call failed.
    static func toolResultBlocks(_ turn: ChatTurn) -> [JSONText] {
        turn.toolResults.map { result in
            JSONText { block in
                block.field("type", "tool_result")
                block.field("tool_use_id", result.callID)
                block.field("content", result.content)
                if result.isError { block.field("is_error", true) }
            }
        }
    }

    /// The thinking budget to ask for: none while the model is between calls of its turn (the last assistant turn asked
    /// for calls), since the turn must then start with its signed thinking block, which Parley does not keep; a turn
    /// without thinking throughout is valid.
    static func thinkingBudget(of request: CompletionRequest) -> Int? {
        let isBetweenCalls = request.turns.last { $0.role == .assistant }.map { !$0.toolCalls.isEmpty } ?? false
        return isBetweenCalls ? nil : request.effectiveThinkingBudget
    }
}
