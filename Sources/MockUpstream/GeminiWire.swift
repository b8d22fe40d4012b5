import Hummingbird
import ParleyCore
import ParleyJSON

/// The Gemini `generateContent` / `streamGenerateContent` format (`POST /v1beta/models/{model}:{action}`). Reasoning
/// comes in parts marked `"thought": true`, and is counted in `thoughtsTokenCount`, apart from `candidatesTokenCount`.
struct GeminiWire: WireFormat {
    func chatRequest(body: ChatRequestBody, request: Request, context: BasicRequestContext) throws(MockError)
        -> ChatRequest
    {
        let modelAction = context.parameters.get("modelAction") ?? ""
        let parts = modelAction.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, ["streamGenerateContent", "generateContent"].contains(parts[1]) else {
            throw .badRequest("expected models/{model}:streamGenerateContent or :generateContent")
        }
        return ChatRequest(
            model: parts[0],
            stream: parts[1] == "streamGenerateContent",
            includeUsage: true,
            apiKey: request.headers[.init("x-goog-api-key")!] ?? request.uri.queryParameters.get("key"),
            promptTokens: body.promptTokens
        )
    }

    func prelude(_ chat: ChatRequest) -> String { "" }

    func reasoning(_ text: String, index: Int, chat: ChatRequest) -> String {
        "data: " + response(chat, parts: thought(text), finishReason: "", usage: promptUsage(chat)) + "\n\n"
    }

    func token(_ text: String, index: Int, chat: ChatRequest) -> String {
        "data: " + response(chat, parts: part(text), finishReason: "", usage: promptUsage(chat)) + "\n\n"
    }

    /// A call is one whole `functionCall` part, without an id; the first of a step's calls carries a
    /// `thoughtSignature`, as Gemini 3's do.
    func toolCall(_ call: MockToolReply.Call, index: Int, chat: ChatRequest) -> String {
        let signature = index == 0 ? #","thoughtSignature":\#(JSONText.quoted(Self.signature(of: call.name)))"# : ""
        let part =
            #"{"functionCall":{"name":\#(JSONText.quoted(call.name)),"args":\#(call.arguments)}\#(signature)}"#
        return "data: " + response(chat, parts: part, finishReason: "", usage: promptUsage(chat)) + "\n\n"
    }

    func finale(_ chat: ChatRequest, completionTokens: Int) -> String {
        let reason = chat.endsAtLimit ? "MAX_TOKENS" : "STOP"
        return "data: "
            + response(
                chat, parts: part(""), finishReason: #""finishReason":"\#(reason)","#,
                usage: usage(chat, completionTokens))
            + "\n\n"
    }

    /// The `thoughtSignature` the mock gives a step's first call of `tool`.
    static func signature(of tool: String) -> String {
        "c2lnbmVk:" + tool
    }

    /// Offered tools are `tools[].functionDeclarations[].name`; results are the `functionResponse` parts of the last
    /// content (`response.output`, or `response.error` for an error). A model content whose first `functionCall`
    /// part lacks the signature the mock gave it is refused, as Gemini 3 refuses it.
    func toolTurns(in body: [String: Any]) -> ToolTurns {
        let contents = body["contents"] as? [[String: Any]] ?? []
        let tools = body["tools"] as? [[String: Any]] ?? []
        let parts = { (content: [String: Any]) in content["parts"] as? [[String: Any]] ?? [] }
        let responses = contents.last.map(parts)?.compactMap { $0["functionResponse"] as? [String: Any] } ?? []
        return ToolTurns(
            offered: tools.flatMap { tool in
                (tool["functionDeclarations"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            },
            results: responses.map { response in
                let payload = response["response"] as? [String: Any] ?? [:]
                if let error = payload["error"] { return ToolTurns.result(ToolTurns.string(error), isError: true) }
                return ToolTurns.string(payload["output"] ?? payload)
            },
            question: contents.last { $0["role"] as? String == "user" && !ToolTurns.text(of: $0["parts"]).isEmpty }
                .map { ToolTurns.text(of: $0["parts"]) } ?? "",
            rounds: contents.filter { parts($0).contains { $0["functionCall"] != nil } }.count,
            unsignedCall: contents.contains { content in
                guard let first = parts(content).first(where: { $0["functionCall"] != nil }) else { return false }
                let name = (first["functionCall"] as? [String: Any])?["name"] as? String ?? ""
                return first["thoughtSignature"] as? String != Self.signature(of: name)
            })
    }

    func completeBody(_ text: String, reasoning: String, chat: ChatRequest, completionTokens: Int) -> String {
        let parts = reasoning.isEmpty ? part(text) : thought(reasoning) + "," + part(text)
        return response(
            chat, parts: parts, finishReason: #""finishReason":"STOP","#, usage: usage(chat, completionTokens))
    }

    func errorBody(_ error: MockError) -> (status: HTTPResponse.Status, body: String) {
        let (status, name): (HTTPResponse.Status, String) =
            switch error {
            case .badRequest: (.badRequest, "INVALID_ARGUMENT")
            case .badKey: (.forbidden, "PERMISSION_DENIED")
            case .modelNotFound: (.notFound, "NOT_FOUND")
            case .rateLimited: (.tooManyRequests, "RESOURCE_EXHAUSTED")
            case .serverError: (.internalServerError, "INTERNAL")
            case .contextTooLong: (.badRequest, "INVALID_ARGUMENT")
            }
        return (
            status,
            #"{"error":{"code":\#(status.code),"message":\#(JSONText.quoted(error.message)),"status":"\#(name)"}}"#
        )
    }

    /// One `GenerateContentResponse` object with `parts` (JSON objects, comma-separated); `finishReason` is empty or
    /// a `"finishReason":…,` member.
    private func response(_ chat: ChatRequest, parts: String, finishReason: String, usage: String) -> String {
        #"{"candidates":[{"content":{"parts":[\#(parts)],"role":"model"},\#(finishReason)"index":0}],"#
            + #""usageMetadata":\#(usage),"modelVersion":\#(JSONText.quoted(chat.model))}"#
    }

    /// A text part.
    private func part(_ text: String) -> String {
        #"{"text":\#(JSONText.quoted(text))}"#
    }

    /// A part of the model's reasoning (a thought).
    private func thought(_ text: String) -> String {
        #"{"text":\#(JSONText.quoted(text)),"thought":true}"#
    }

    /// The `usageMetadata` of a chunk before the last: the prompt's count only.
    private func promptUsage(_ chat: ChatRequest) -> String {
        #"{"promptTokenCount":\#(chat.promptTokens),"totalTokenCount":\#(chat.promptTokens)}"#
    }

    /// The final `usageMetadata` for a reply of `completionTokens` answer tokens: its reasoning tokens are counted
    /// apart, in `thoughtsTokenCount`, when there are any.
    private func usage(_ chat: ChatRequest, _ completionTokens: Int) -> String {
        let thoughts = chat.reasoningTokens == 0 ? "" : #""thoughtsTokenCount":\#(chat.reasoningTokens),"#
        let total = chat.promptTokens + completionTokens + chat.reasoningTokens
        return
            #"{"promptTokenCount":\#(chat.promptTokens),"candidatesTokenCount":\#(completionTokens),\#(thoughts)"totalTokenCount":\#(total)}"#
    }
}
