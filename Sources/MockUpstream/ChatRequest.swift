import Foundation

/// What the simulator needs from one chat request, whatever its wire format.
struct ChatRequest: Sendable {
    var model: String
    var stream: Bool
    var includeUsage: Bool
    var apiKey: String?
    var promptTokens: Int
    /// When the request arrived, in seconds since 1970 (OpenAI's `created`).
    var created: Int

    /// Describes a request arriving now.
    init(model: String, stream: Bool, includeUsage: Bool, apiKey: String?, promptTokens: Int) {
        self.model = model
        self.stream = stream
        self.includeUsage = includeUsage
        self.apiKey = apiKey
        self.promptTokens = promptTokens
        self.created = Int(Date().timeIntervalSince1970)
    }

    /// Rough prompt size of a decoded body: characters of all message texts / 4, at least 1.
    static func promptTokens(in body: [String: Any]) -> Int {
        max(1, textLength(of: body) / 4)
    }

    /// Keys whose values hold message text, in the OpenAI, Anthropic and Gemini request shapes.
    private static let textKeys: Set<String> = ["messages", "contents", "system", "systemInstruction", "content", "parts", "text"]

    /// Characters of the strings found under `textKeys`, recursively.
    private static func textLength(of value: Any) -> Int {
        switch value {
        case let text as String: text.count
        case let array as [Any]: array.reduce(0) { $0 + textLength(of: $1) }
        case let object as [String: Any]: object.reduce(0) { textKeys.contains($1.key) ? $0 + textLength(of: $1.value) : $0 }
        default: 0
        }
    }
}
