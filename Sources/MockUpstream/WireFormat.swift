import Hummingbird

/// A vendor's wire format: how a chat request is read and how replies and errors are framed.
protocol WireFormat: Sendable {
    /// Reads the chat request from its body's fields and its HTTP request.
    func chatRequest(body: ChatRequestBody, request: Request, context: BasicRequestContext) throws(MockError)
        -> ChatRequest
    /// Events sent before the first token (may be empty).
    func prelude(_ chat: ChatRequest) -> String
    /// The event carrying the token `text` at position `index`.
    func token(_ text: String, index: Int, chat: ChatRequest) -> String
    /// Events that end a stream of `completionTokens` tokens normally.
    func finale(_ chat: ChatRequest, completionTokens: Int) -> String
    /// The non-streaming JSON body carrying the whole `text`.
    func completeBody(_ text: String, chat: ChatRequest, completionTokens: Int) -> String
    /// The HTTP status and vendor-shaped JSON body of `error`.
    func errorBody(_ error: MockError) -> (status: HTTPResponse.Status, body: String)
}
