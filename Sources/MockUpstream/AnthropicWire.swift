import Hummingbird
import ParleyCore
import ParleyJSON

/// The Anthropic Messages format (`POST /v1/messages`).
struct AnthropicWire: WireFormat {
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
        return event("message_start", #"{"type":"message_start","message":\#(message)}"#)
            + event(
                "content_block_start",
                #"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#)
            + event("ping", #"{"type":"ping"}"#)
    }

    func token(_ text: String, index: Int, chat: ChatRequest) -> String {
        event(
            "content_block_delta",
            #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":\#(JSONText.quoted(text))}}"#)
    }

    func finale(_ chat: ChatRequest, completionTokens: Int) -> String {
        event("content_block_stop", #"{"type":"content_block_stop","index":0}"#)
            + event(
                "message_delta",
                #"{"type":"message_delta","delta":{"stop_reason":"\#(chat.endsAtLimit ? "max_tokens" : "end_turn")","#
                    + #""stop_sequence":null},"usage":{"output_tokens":\#(completionTokens)}}"#)
            + event("message_stop", #"{"type":"message_stop"}"#)
    }

    func completeBody(_ text: String, chat: ChatRequest, completionTokens: Int) -> String {
        #"{"id":"msg_mock","type":"message","role":"assistant","model":\#(JSONText.quoted(chat.model)),"#
            + #""content":[{"type":"text","text":\#(JSONText.quoted(text))}],"stop_reason":"end_turn","stop_sequence":null,"#
            + #""usage":{"input_tokens":\#(chat.promptTokens),"output_tokens":\#(completionTokens)}}"#
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

    /// One server-sent event named `name` with JSON `data`.
    private func event(_ name: String, _ data: String) -> String {
        "event: \(name)\ndata: \(data)\n\n"
    }
}
