import ParleyCore
import ParleyJSON

/// One streamed Chat Completions chunk: only the fields Parley reads, each checked for its type, read with a
/// `JSONCursor` rather than a `JSONDecoder` (a general decoder was the largest single cost of relaying a token).
struct ChatCompletionChunk: Equatable {
    /// One of `choices`.
    struct Choice: Equatable {
        var content: String?
        var finishReason: String?
        /// The delta's reasoning: `reasoning_content` (DeepSeek, vLLM, llama.cpp's server) or else `reasoning`
        /// (OpenRouter, Ollama, newer vLLM); a server sending both during vLLM's rename sends the same text in each.
        var reasoning: String? = nil
        /// The delta's `tool_calls`: pieces of calls, a call's arguments streaming over several chunks.
        var toolCalls: [ToolCallPiece] = []
    }

    /// A piece of a streamed tool call: its index in the reply (absent from a few servers' deltas), then the id and
    /// name in its first piece, and a part of its arguments' text.
    struct ToolCallPiece: Equatable {
        var index: Int?
        var id: String?
        var name: String?
        var arguments: String?
    }

    /// The token counts of the final chunk (with `stream_options.include_usage`).
    struct TokenUsage: Equatable {
        var promptTokens: Int?
        var completionTokens: Int?
        /// `prompt_tokens_details.cached_tokens`: the part of the prompt read from the prompt cache.
        var cachedTokens: Int?
        /// `completion_tokens_details.reasoning_tokens`: the part of the completion spent reasoning (counted in it).
        var reasoningTokens: Int? = nil
    }

    var choices: [Choice]?
    var usage: TokenUsage?
    /// Whether the chunk carries an `error` instead of content (some servers report failures mid-stream this way).
    var hasError = false

    /// Reads a chunk from its JSON text; throws `JSONCursor.Invalid` for anything that is not such a chunk.
    init(json: String) throws {
        self = try JSONCursor.readDocument(json) { cursor in
            var chunk = ChatCompletionChunk()
            try cursor.readObject { cursor, key in
                switch key {
                case "choices": chunk.choices = try cursor.readNull() ? nil : Self.readChoices(&cursor)
                case "usage": chunk.usage = try cursor.readNull() ? nil : Self.readUsage(&cursor)
                case "error":
                    guard try !cursor.readNull() else { return }
                    chunk.hasError = true
                    try cursor.skipValue()
                default: try cursor.skipValue()
                }
            }
            return chunk
        }
    }

    private init() {}

    private static func readChoices(_ cursor: inout JSONCursor) throws -> [Choice] {
        var choices: [Choice] = []
        try cursor.readArray { cursor, _ in
            var choice = Choice()
            try cursor.readObject { cursor, key in
                switch key {
                case "delta":
                    guard try !cursor.readNull() else { return }
                    var reasoning: String?
                    try cursor.readObject { cursor, key in
                        switch key {
                        case "content": choice.content = try cursor.readNull() ? nil : cursor.readString()
                        case "reasoning_content": choice.reasoning = try cursor.readNull() ? nil : cursor.readString()
                        case "reasoning": reasoning = try cursor.readNull() ? nil : cursor.readString()
                        case "tool_calls": choice.toolCalls = try cursor.readNull() ? [] : Self.readToolCalls(&cursor)
                        default: try cursor.skipValue()
                        }
                    }
                    choice.reasoning = choice.reasoning ?? reasoning
                case "finish_reason": choice.finishReason = try cursor.readNull() ? nil : cursor.readString()
                default: try cursor.skipValue()
                }
            }
            choices.append(choice)
        }
        return choices
    }

    private static func readToolCalls(_ cursor: inout JSONCursor) throws -> [ToolCallPiece] {
        var pieces: [ToolCallPiece] = []
        try cursor.readArray { cursor, _ in
            var piece = ToolCallPiece()
            try cursor.readObject { cursor, key in
                switch key {
                case "index": piece.index = try cursor.readNull() ? nil : cursor.readInt()
                case "id": piece.id = try cursor.readNull() ? nil : cursor.readString()
                case "function":
                    guard try !cursor.readNull() else { return }
                    try cursor.readObject { cursor, key in
                        switch key {
                        case "name": piece.name = try cursor.readNull() ? nil : cursor.readString()
                        case "arguments": piece.arguments = try cursor.readNull() ? nil : cursor.readString()
                        default: try cursor.skipValue()
                        }
                    }
                default: try cursor.skipValue()
                }
            }
            pieces.append(piece)
        }
        return pieces
    }

    private static func readUsage(_ cursor: inout JSONCursor) throws -> TokenUsage {
        var usage = TokenUsage()
        try cursor.readObject { cursor, key in
            switch key {
            case "prompt_tokens": usage.promptTokens = try cursor.readNull() ? nil : cursor.readInt()
            case "completion_tokens": usage.completionTokens = try cursor.readNull() ? nil : cursor.readInt()
            case "prompt_tokens_details":
                guard try !cursor.readNull() else { return }
                try cursor.readObject { cursor, key in
                    guard case "cached_tokens" = key else { return try cursor.skipValue() }
                    usage.cachedTokens = try cursor.readNull() ? nil : cursor.readInt()
                }
            case "completion_tokens_details":
                guard try !cursor.readNull() else { return }
                try cursor.readObject { cursor, key in
                    guard case "reasoning_tokens" = key else { return try cursor.skipValue() }
                    usage.reasoningTokens = try cursor.readNull() ? nil : cursor.readInt()
                }
            default: try cursor.skipValue()
            }
        }
        return usage
    }
}
