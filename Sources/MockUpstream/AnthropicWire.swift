import Hummingbird
import ParleyCore
import ParleyJSON

/// The Anthropic Messages format (`POST /v1/messages`). A reply that reasons opens with a `thinking` block (its text in
/// `thinking_delta`s, then a `signature_delta`) and a `redacted_thinking` block, then its text block; the thinking is
/// counted in `output_tokens`, with no count of its own.
struct AnthropicWire: WireFormat {
    /// The signature Anthropic sends at the end of a thinking block (opaque; a client sends it back with the block).
    private static let signature = "bW9jay1zaWduYXR1cmU="

    func chatRequest(body: ChatRequestBody, request: Request, context: BasicRequestContext) throws(MockError)
        -> ChatRequest
    {
        guard let model = body.model else { throw .badRequest("missing model") }
        return ChatRequest(
            model: model,
            stream: body.stream ?? false,
            includeUsage: true,
            apiKey: request.headers[.init("x-api-key")!],
            promptTokens: body.promptTokens
        )
    }

    func prelude(_ chat: ChatRequest) -> String {
        let message =
            #"{"id":"msg_mock","type":"message","role":"assistant","model":\#(JSONText.quoted(chat.model)),"#
            + #""content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":\#(chat.promptTokens),"output_tokens":1}}"#
        let first =
            chat.reasoningTokens > 0
            ? blockStart(0, #"{"type":"thinking","thinking":"","signature":""}"#) : textBlockStart(chat)
        return event("message_start", #"{"type":"message_start","message":\#(message)}"#) + first
            + event("ping", #"{"type":"ping"}"#)
    }

    func reasoning(_ text: String, index: Int, chat: ChatRequest) -> String {
        event(
            "content_block_delta",
            #"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":\#(JSONText.quoted(text))}}"#
        )
    }

    func token(_ text: String, index: Int, chat: ChatRequest) -> String {
        // After the reasoning, the thinking block is signed and closed, and a redacted one comes before the text.
        let opening =
            index == 0 && chat.reasoningTokens > 0
            ? event(
                "content_block_delta",
                #"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"\#(Self.signature)"}}"#
            ) + blockStop(0) + blockStart(1, #"{"type":"redacted_thinking","data":"\#(Self.signature)"}"#)
                + blockStop(1) + textBlockStart(chat)
            : ""
        return opening
            + event(
                "content_block_delta",
                #"{"type":"content_block_delta","index":\#(textIndex(chat)),"delta":{"type":"text_delta","text":\#(JSONText.quoted(text))}}"#
            )
    }

    /// The first call closes the text block; each is a `tool_use` block after it, its input in `input_json_delta`
    /// pieces.
    func toolCall(_ call: MockToolReply.Call, index: Int, chat: ChatRequest) -> String {
        let block = textIndex(chat) + 1 + index
        let start = blockStart(
            block,
            #"{"type":"tool_use","id":\#(JSONText.quoted(call.id)),"name":\#(JSONText.quoted(call.name)),"input":{}}"#)
        let pieces = ([""] + call.argumentPieces).map { piece in
            event(
                "content_block_delta",
                #"{"type":"content_block_delta","index":\#(block),"delta":{"type":"input_json_delta","#
                    + #""partial_json":\#(JSONText.quoted(piece))}}"#)
        }
        return (index == 0 ? blockStop(textIndex(chat)) : "") + start + pieces.joined() + blockStop(block)
    }

    func finale(_ chat: ChatRequest, completionTokens: Int) -> String {
        let reason = chat.endsAtLimit ? "max_tokens" : chat.toolCalls > 0 ? "tool_use" : "end_turn"
        // A reply that called closed its last block with the call.
        return (chat.toolCalls > 0 ? "" : blockStop(textIndex(chat)))
            + event(
                "message_delta",
                #"{"type":"message_delta","delta":{"stop_reason":"\#(reason)","#
                    + #""stop_sequence":null},"usage":{"output_tokens":\#(completionTokens + chat.reasoningTokens)}}"#)
            + event("message_stop", #"{"type":"message_stop"}"#)
    }

    /// Offered tools are `tools[].name`; results are the `tool_result` blocks of the last message.
    func toolTurns(in body: [String: Any]) -> ToolTurns {
        let messages = body["messages"] as? [[String: Any]] ?? []
        let tools = body["tools"] as? [[String: Any]] ?? []
        let blocks = { (message: [String: Any]) in message["content"] as? [[String: Any]] ?? [] }
        let results = messages.last.map(blocks)?.filter { $0["type"] as? String == "tool_result" } ?? []
        return ToolTurns(
            offered: tools.compactMap { $0["name"] as? String },
            results: results.map {
                ToolTurns.result(ToolTurns.text(of: $0["content"]), isError: $0["is_error"] as? Bool == true)
            },
            question: messages.last { $0["role"] as? String == "user" && !ToolTurns.text(of: $0["content"]).isEmpty }
                .map { ToolTurns.text(of: $0["content"]) } ?? "",
            rounds: messages.filter { blocks($0).contains { $0["type"] as? String == "tool_use" } }.count)
    }

    func completeBody(_ text: String, reasoning: String, chat: ChatRequest, completionTokens: Int) -> String {
        let thinking =
            reasoning.isEmpty
            ? ""
            : #"{"type":"thinking","thinking":\#(JSONText.quoted(reasoning)),"signature":"\#(Self.signature)"},"#
        return #"{"id":"msg_mock","type":"message","role":"assistant","model":\#(JSONText.quoted(chat.model)),"#
            + #""content":[\#(thinking){"type":"text","text":\#(JSONText.quoted(text))}],"stop_reason":"end_turn","#
            + #""stop_sequence":null,"usage":{"input_tokens":\#(chat.promptTokens),"#
            + #""output_tokens":\#(completionTokens + chat.reasoningTokens)}}"#
    }

    func errorBody(_ error: MockError) -> (status: HTTPResponse.Status, body: String) {
        let (status, type): (HTTPResponse.Status, String) =
            switch error {
            case .badRequest: (.badRequest, "invalid_request_error")
            case .badKey: (.unauthorized, "authentication_error")
            case .modelNotFound: (.notFound, "not_found_error")
            case .rateLimited: (.tooManyRequests, "rate_limit_error")
            case .serverError: (.internalServerError, "api_error")
            case .contextTooLong: (.badRequest, "invalid_request_error")
            }
        return (status, #"{"type":"error","error":{"type":"\#(type)","message":\#(JSONText.quoted(error.message))}}"#)
    }

    /// The index of the text block: after the thinking and redacted thinking blocks of a reply that reasons.
    private func textIndex(_ chat: ChatRequest) -> Int {
        chat.reasoningTokens > 0 ? 2 : 0
    }

    /// The `content_block_start` of the text block.
    private func textBlockStart(_ chat: ChatRequest) -> String {
        blockStart(textIndex(chat), #"{"type":"text","text":""}"#)
    }

    /// A `content_block_start` event of the block `block` (JSON) at `index`.
    private func blockStart(_ index: Int, _ block: String) -> String {
        event(
            "content_block_start", #"{"type":"content_block_start","index":\#(index),"content_block":\#(block)}"#)
    }

    /// A `content_block_stop` event of the block at `index`.
    private func blockStop(_ index: Int) -> String {
        event("content_block_stop", #"{"type":"content_block_stop","index":\#(index)}"#)
    }

    /// One server-sent event named `name` with JSON `data`.
    private func event(_ name: String, _ data: String) -> String {
        "event: \(name)\ndata: \(data)\n\n"
    }
}
