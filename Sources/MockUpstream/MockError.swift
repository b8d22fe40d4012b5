/// An error the simulator answers with instead of a reply; each wire format renders it in its vendor's shape.
enum MockError: Error, Sendable {
    case badRequest(String)
    case badKey
    case modelNotFound(String)
    case rateLimited
    case serverError
    /// The prompt is longer than the model's window (`mock-window`), as each vendor words it.
    case contextTooLong(promptTokens: Int, window: Int)

    /// Human-readable message put in the vendor's error body.
    var message: String {
        switch self {
        case .badRequest(let reason): "Invalid request: \(reason)"
        case .badKey: "Incorrect API key provided: bad-key"
        case .modelNotFound(let model): "The model `\(model)` does not exist"
        case .rateLimited: "Rate limit reached (mock-429); retry after 1 second"
        case .serverError: "The mock upstream had an internal error (mock-500)"
        case .contextTooLong(let prompt, let window):
            "This model's maximum context length is \(window) tokens. However, your messages resulted in \(prompt) tokens."
                + " (prompt is too long: \(prompt) tokens > \(window) maximum; the input token count exceeds the maximum number of tokens allowed)"
        }
    }
}
