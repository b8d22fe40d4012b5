import Hummingbird
import ParleyCore
import ParleyJSON

/// The Gemini `generateContent` / `streamGenerateContent` format (`POST /v1beta/models/{model}:{action}`).
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

    func token(_ text: String, index: Int, chat: ChatRequest) -> String {
        let usage = #"{"promptTokenCount":\#(chat.promptTokens),"totalTokenCount":\#(chat.promptTokens)}"#
        return "data: " + response(chat, text: text, finishReason: "", usage: usage) + "\n\n"
    }

    func finale(_ chat: ChatRequest, completionTokens: Int) -> String {
        let reason = chat.endsAtLimit ? "MAX_TOKENS" : "STOP"
        return "data: "
            + response(
                chat, text: "", finishReason: #""finishReason":"\#(reason)","#, usage: usage(chat, completionTokens))
            + "\n\n"
    }

    func completeBody(_ text: String, chat: ChatRequest, completionTokens: Int) -> String {
        response(chat, text: text, finishReason: #""finishReason":"STOP","#, usage: usage(chat, completionTokens))
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

    /// One `GenerateContentResponse` object; `finishReason` is empty or a `"finishReason":…,` member.
    private func response(_ chat: ChatRequest, text: String, finishReason: String, usage: String) -> String {
        #"{"candidates":[{"content":{"parts":[{"text":\#(JSONText.quoted(text))}],"role":"model"},\#(finishReason)"index":0}],"#
            + #""usageMetadata":\#(usage),"modelVersion":\#(JSONText.quoted(chat.model))}"#
    }

    /// The final `usageMetadata` for a reply of `completionTokens` tokens.
    private func usage(_ chat: ChatRequest, _ completionTokens: Int) -> String {
        #"{"promptTokenCount":\#(chat.promptTokens),"candidatesTokenCount":\#(completionTokens),"totalTokenCount":\#(chat.promptTokens + completionTokens)}"#
    }
}
