import Hummingbird

/// A vendor's wire format: how a chat request is read and how replies and errors are framed.
protocol WireFormat: Sendable {
    /// Reads the chat request from its body's fields and its HTTP request.
    func chatRequest(body: ChatRequestBody, request: Request, context: BasicRequestContext) throws(MockError)
        -> ChatRequest
    /// Events sent before the first token (may be empty).
    func prelude(_ chat: ChatRequest) -> String
    /// The event carrying the reasoning token `text` at position `index` (of `chat.reasoningTokens`, sent before the
    /// answer's).
    func reasoning(_ text: String, index: Int, chat: ChatRequest) -> String
    /// The event carrying the answer token `text` at position `index`.
    func token(_ text: String, index: Int, chat: ChatRequest) -> String
    /// The events asking for the tool call `call`, the `index`th after the answer's tokens, in the vendor's streaming
    /// shape (its arguments in pieces where the vendor streams them so).
    func toolCall(_ call: MockToolReply.Call, index: Int, chat: ChatRequest) -> String
    /// Events that end a stream of `completionTokens` answer tokens (after `chat.reasoningTokens` reasoning tokens)
    /// normally.
    func finale(_ chat: ChatRequest, completionTokens: Int) -> String
    /// What a `mock-tools` request body (as a dictionary) says about tools.
    func toolTurns(in body: [String: Any]) -> ToolTurns
    /// The non-streaming JSON body carrying the whole `text`, after the whole `reasoning` if not empty.
    func completeBody(_ text: String, reasoning: String, chat: ChatRequest, completionTokens: Int) -> String
    /// The HTTP status and vendor-shaped JSON body of `error`.
    func errorBody(_ error: MockError) -> (status: HTTPResponse.Status, body: String)
}
