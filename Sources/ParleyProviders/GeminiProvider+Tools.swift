import ParleyCore
import ParleyJSON

/// Tools in `generateContent`: `functionDeclarations` (schemas cut to Gemini's subset), `functionCall` parts in the
/// model's content, and `functionResponse` parts in the user content after it.
extension GeminiProvider {
    /// Writes `tools` as one tool of function declarations.
    static func writeTools(_ body: inout JSONText, _ tools: [ToolDefinition]) {
        let declarations = tools.map { tool in
            JSONText { declaration in
                declaration.field("name", tool.name)
                declaration.field("description", tool.description)
                if let parameters = GeminiSchema.parameters(from: tool.inputSchema) {
                    declaration.field("parameters", json: parameters)
                }
            }
        }
        body.field("tools", objects: [JSONText { $0.field("functionDeclarations", objects: declarations) }])
    }

    /// The parts of a model turn that asked for calls: its text, if any, then a `functionCall` part per call, whose
    /// `args` are the call's arguments (`{}` when they are not a JSON object), with the `thoughtSignature` it came with
    /// (Gemini 3 refuses a call sent back without it).
    static func functionCallParts(_ turn: ChatTurn) -> [JSONText] {
        let text = turn.content.isEmpty ? [] : [JSONText { $0.field("text", turn.content) }]
        return text
            + turn.toolCalls.map { call in
                JSONText { part in
                    part.field(
                        "functionCall",
                        object: JSONText { function in
                            function.field("name", call.name)
                            function.field("args", json: ToolJSON.object(call.arguments))
                        })
                    if let signature = call.signature { part.field("thoughtSignature", signature) }
                }
            }
    }

    /// The parts of a user turn carrying results back: a `functionResponse` part per result, named after its tool (how
    /// Gemini matches them), the text under `output`, or under `error` when the call failed.
    static func functionResponseParts(_ turn: ChatTurn) -> [JSONText] {
        turn.toolResults.map { result in
            JSONText { part in
                part.field(
                    "functionResponse",
                    object: JSONText { response in
                        response.field("name", result.name)
                        response.field(
                            "response",
                            object: JSONText { $0.field(result.isError ? "error" : "output", result.content) })
                    })
            }
        }
    }
}
