import Foundation

/// What a `mock-tools` request says about tools, read from its body by its wire format: the tools offered, the results
/// its latest turn carries back, the text of its last user message that has text, and how many rounds of calls came
/// before.
struct ToolTurns: Sendable, Equatable {
    /// The offered tools' names, in the request's order.
    var offered: [String] = []
    /// The texts of the results the latest turn carries, an error's after `Error: `; empty when it carries none.
    var results: [String] = []
    /// The last user message's text.
    var question = ""
    /// The assistant turns that asked for calls.
    var rounds = 0
    /// Whether a turn that asked for calls came back without the signature its first call was given.
    var unsignedCall = false

    /// Reads a request body as a dictionary (nil when it is not a JSON object).
    static func body(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    /// The text of a message's or block's content: itself when a string, the `text` of its parts when a list.
    static func text(of content: Any?) -> String {
        if let text = content as? String { return text }
        let parts = content as? [[String: Any]] ?? []
        return parts.compactMap { $0["text"] as? String }.joined()
    }

    /// A result's payload as text: itself when a string, else its JSON.
    static func string(_ value: Any) -> String {
        if let text = value as? String { return text }
        let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// `content` marked as an error's when `isError`.
    static func result(_ content: String, isError: Bool) -> String {
        isError ? "Error: " + content : content
    }
}
