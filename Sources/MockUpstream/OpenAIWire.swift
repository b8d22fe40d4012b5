import Hummingbird
import ParleyCore
import ParleyJSON

/// The OpenAI-compatible chat completions format (`POST /v1/chat/completions`); reasoning comes as DeepSeek's, vLLM's
/// and llama.cpp's servers send it, in `delta.reasoning_content`, and is counted in `completion_tokens` and in
/// `completion_tokens_details.reasoning_tokens`.
struct OpenAIWire: WireFormat {
    /// The `GET /v1/models` body listing every mock model.
    static let modelList: String = {
        let entries = MockFault.listedModels.map {
            #"{"id":\#(JSONText.quoted($0)),"object":"model","owned_by":"mock"}"#
        }
        return #"{"object":"list","data":[\#(entries.joined(separator: ","))]}"#
    }()

    func chatRequest(body: ChatRequestBody, request: Request, context: BasicRequestContext) throws(MockError)
        -> ChatRequest
    {
        guard let model = body.model else { throw .badRequest("missing model") }
        let bearer = request.headers[.authorization].map { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : $0 }
        return ChatRequest(
            model: model,
            stream: body.stream ?? false,
            includeUsage: body.includeUsage ?? false,
            apiKey: bearer,
            promptTokens: body.promptTokens
        )
    }

    func prelude(_ chat: ChatRequest) -> String { "" }

    func reasoning(_ text: String, index: Int, chat: ChatRequest) -> String {
        let role = index == 0 ? #""role":"assistant","# : ""
        return chunk(
            chat,
            choices:
                #"[{"index":0,"delta":{\#(role)"content":null,"reasoning_content":\#(JSONText.quoted(text))},"#
                + #""finish_reason":null}]"#)
    }

    func token(_ text: String, index: Int, chat: ChatRequest) -> String {
        let role = index == 0 && chat.reasoningTokens == 0 ? #""role":"assistant","# : ""
        return chunk(
            chat, choices: #"[{"index":0,"delta":{\#(role)"content":\#(JSONText.quoted(text))},"finish_reason":null}]"#)
    }

    /// A call's first delta names it, with empty arguments; the arguments follow in pieces, a chunk each.
    func toolCall(_ call: MockToolReply.Call, index: Int, chat: ChatRequest) -> String {
        let header =
            #"{"index":\#(index),"id":\#(JSONText.quoted(call.id)),"type":"function","#
            + #""function":{"name":\#(JSONText.quoted(call.name)),"arguments":""}}"#
        let pieces = call.argumentPieces.map {
            #"{"index":\#(index),"function":{"arguments":\#(JSONText.quoted($0))}}"#
        }
        return ([#""content":null,"tool_calls":[\#(header)]"#] + pieces.map { #""tool_calls":[\#($0)]"# })
            .map { chunk(chat, choices: #"[{"index":0,"delta":{\#($0)},"finish_reason":null}]"#) }.joined()
    }

    func finale(_ chat: ChatRequest, completionTokens: Int) -> String {
        let reason = chat.endsAtLimit ? "length" : chat.toolCalls > 0 ? "tool_calls" : "stop"
        let stop = chunk(chat, choices: #"[{"index":0,"delta":{},"finish_reason":"\#(reason)"}]"#)
        let usage =
            chat.includeUsage ? chunk(chat, choices: "[]", extra: #","usage":\#(usage(chat, completionTokens))"#) : ""
        return stop + usage + "data: [DONE]\n\n"
    }

    /// Offered tools are `tools[].function.name`; results are the `tool` messages that end the list.
    func toolTurns(in body: [String: Any]) -> ToolTurns {
        let messages = body["messages"] as? [[String: Any]] ?? []
        let tools = body["tools"] as? [[String: Any]] ?? []
        return ToolTurns(
            offered: tools.compactMap { ($0["function"] as? [String: Any])?["name"] as? String },
            results: messages.reversed().prefix { $0["role"] as? String == "tool" }.reversed().map {
                ToolTurns.text(of: $0["content"])
            },
            question: messages.last { $0["role"] as? String == "user" }.map { ToolTurns.text(of: $0["content"]) } ?? "",
            rounds: messages.filter { $0["tool_calls"] != nil }.count)
    }

    func completeBody(_ text: String, reasoning: String, chat: ChatRequest, completionTokens: Int) -> String {
        let thought = reasoning.isEmpty ? "" : #""reasoning_content":\#(JSONText.quoted(reasoning)),"#
        return
            #"{"id":"chatcmpl-mock","object":"chat.completion","created":\#(chat.created),"model":\#(JSONText.quoted(chat.model)),"#
            + #""choices":[{"index":0,"message":{"role":"assistant",\#(thought)"content":\#(JSONText.quoted(text))},"#
            + #""finish_reason":"stop"}],"usage":\#(usage(chat, completionTokens))}"#
    }

    func errorBody(_ error: MockError) -> (status: HTTPResponse.Status, body: String) {
        let (status, type, code): (HTTPResponse.Status, String, String) =
            switch error {
            case .badRequest: (.badRequest, "invalid_request_error", "invalid_request")
            case .badKey: (.unauthorized, "invalid_request_error", "invalid_api_key")
            case .modelNotFound: (.notFound, "invalid_request_error", "model_not_found")
            case .rateLimited: (.tooManyRequests, "requests", "rate_limit_exceeded")
            case .serverError: (.internalServerError, "server_error", "server_error")
            case .contextTooLong: (.badRequest, "invalid_request_error", "context_length_exceeded")
            }
        return (
            status, #"{"error":{"message":\#(JSONText.quoted(error.message)),"type":"\#(type)","code":"\#(code)"}}"#
        )
    }

    /// One `chat.completion.chunk` event with the given `choices` and extra members.
    private func chunk(_ chat: ChatRequest, choices: String, extra: String = "") -> String {
        #"data: {"id":"chatcmpl-mock","object":"chat.completion.chunk","created":\#(chat.created),"#
            + #""model":\#(JSONText.quoted(chat.model)),"choices":\#(choices)\#(extra)}"# + "\n\n"
    }

    /// The `usage` object for a reply of `completionTokens` answer tokens: its reasoning tokens are in
    /// `completion_tokens`, and told apart in `completion_tokens_details` when there are any.
    private func usage(_ chat: ChatRequest, _ completionTokens: Int) -> String {
        let completion = completionTokens + chat.reasoningTokens
        let details =
            chat.reasoningTokens == 0
            ? "" : #","completion_tokens_details":{"reasoning_tokens":\#(chat.reasoningTokens)}"#
        return
            #"{"prompt_tokens":\#(chat.promptTokens),"completion_tokens":\#(completion),"total_tokens":\#(chat.promptTokens + completion)\#(details)}"#
    }
}
