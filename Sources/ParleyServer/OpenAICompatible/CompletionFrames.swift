import ParleyCore
import ParleyJSON

/// OpenAI's chat completion objects for one completion, written by hand: the streamed `chat.completion.chunk`s (as
/// SSE `data:` lines) and the whole `chat.completion`.
struct CompletionFrames: Sendable {
    /// What ends a stream.
    static let done: [UInt8] = Array("data: [DONE]\n\n".utf8)

    let id: String
    let created: Int
    let model: String

    /// A chunk whose delta carries the assistant's role and no text (a stream's first).
    var roleChunk: [UInt8] {
        chunk(
            delta: JSONText {
                $0.field("role", "assistant"); $0.field("content", "")
            }, finishReason: nil)
    }

    /// A chunk carrying text and reasoning (`reasoning_content`, as reasoning servers send it), nil when both are empty.
    func textChunk(text: String, reasoning: String) -> [UInt8]? {
        guard !text.isEmpty || !reasoning.isEmpty else { return nil }
        return chunk(
            delta: JSONText { delta in
                if !reasoning.isEmpty { delta.field("reasoning_content", reasoning) }
                if !text.isEmpty { delta.field("content", text) }
            }, finishReason: nil)
    }

    /// The chunk that says why the answer ended.
    func finishChunk(_ end: APICompletion.End) -> [UInt8] {
        chunk(delta: JSONText(), finishReason: Self.finishReason(end))
    }

    /// The chunk with no choices and the usage, sent last when the caller asked for it.
    func usageChunk(_ usage: Usage) -> [UInt8] {
        frame(
            JSONText { chunk in
                header(&chunk, object: "chat.completion.chunk")
                chunk.field("choices", objects: [])
                chunk.field("usage", object: Self.usage(usage))
            })
    }

    /// The error event that ends a stream which failed after its first text.
    static func errorEvent(_ error: AppError) -> [UInt8] {
        Array("data: ".utf8) + OpenAIError.body(error) + Array("\n\n".utf8)
    }

    /// The whole completion, for a request that did not stream.
    func completion(_ result: APICompletion) -> [UInt8] {
        JSONText { body in
            header(&body, object: "chat.completion")
            let message = JSONText { message in
                message.field("role", "assistant")
                message.field("content", result.text)
                if !result.reasoning.isEmpty { message.field("reasoning_content", result.reasoning) }
            }
            let choice = JSONText { choice in
                choice.field("index", 0)
                choice.field("message", object: message)
                choice.field(null: "logprobs")
                choice.field("finish_reason", Self.finishReason(result.end) ?? "stop")
            }
            body.field("choices", objects: [choice])
            body.field("usage", object: Self.usage(result.usage))
        }.resultBytes
    }

    private func chunk(delta: JSONText, finishReason: String?) -> [UInt8] {
        frame(
            JSONText { chunk in
                header(&chunk, object: "chat.completion.chunk")
                let choice = JSONText { choice in
                    choice.field("index", 0)
                    choice.field("delta", object: delta)
                    if let finishReason {
                        choice.field("finish_reason", finishReason)
                    } else {
                        choice.field(null: "finish_reason")
                    }
                }
                chunk.field("choices", objects: [choice])
            })
    }

    private func header(_ object: inout JSONText, object kind: String) {
        object.field("id", id)
        object.field("object", kind)
        object.field("created", created)
        object.field("model", model)
    }

    private func frame(_ object: JSONText) -> [UInt8] {
        Array("data: ".utf8) + object.resultBytes + Array("\n\n".utf8)
    }

    /// OpenAI's finish reason: `stop` when the model ended, `length` at the output limit.
    private static func finishReason(_ end: APICompletion.End) -> String? {
        switch end {
        case .complete: "stop"
        case .cutAtLimit: "length"
        case .failed, .cancelled: nil
        }
    }

    /// OpenAI's usage object, with the cached prompt and reasoning tokens in their details.
    private static func usage(_ usage: Usage) -> JSONText {
        JSONText { object in
            object.field("prompt_tokens", usage.promptTokens)
            object.field("completion_tokens", usage.completionTokens)
            object.field("total_tokens", usage.promptTokens + usage.completionTokens)
            object.field(
                "prompt_tokens_details", object: JSONText { $0.field("cached_tokens", usage.cachedPromptTokens) })
            object.field(
                "completion_tokens_details", object: JSONText { $0.field("reasoning_tokens", usage.reasoningTokens) })
        }
    }
}
