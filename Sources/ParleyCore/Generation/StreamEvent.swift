import ParleyMarkdown

/// An event of the conversation stream, encoded once as a Server-Sent Events frame.
public enum StreamEvent: Sendable {
    case start(messageID: MessageID, model: String)
    case token(messageID: MessageID, text: String, html: StreamedHTML)
    case error(messageID: MessageID, reason: FailureReason)
    case done(messageID: MessageID, status: MessageStatus, html: String, usage: Usage)

    /// The SSE frame with this id: `id:`, `event:` and one `data:` line of JSON.
    public func frame(id: EventID) -> String {
        var json = JSONText()
        let name: String
        switch self {
        case .start(let messageID, let model):
            name = "start"
            json.field("message_id", messageID)
            json.field("model", model)
        case .token(let messageID, let text, let html):
            name = "token"
            json.field("message_id", messageID)
            json.field("text", text)
            json.field("append", html.append)
            if let tail = html.tail { json.field("tail", tail) }
        case .error(let messageID, let reason):
            name = "error"
            json.field("message_id", messageID)
            json.field("code", reason.code)
            json.field("message", reason.message)
        case .done(let messageID, let status, let html, let usage):
            name = "done"
            json.field("message_id", messageID)
            json.field("status", status.rawValue)
            json.field("html", html)
            json.field("usage", object: usage.json)
        }
        return "id: \(id.value)\nevent: \(name)\ndata: \(json.result)\n\n"
    }

    /// The `done` event of a finished message, as stored.
    public static func done(for message: Message) -> StreamEvent {
        .done(messageID: message.id, status: message.status, html: MarkdownRenderer.html(message.content), usage: message.usage)
    }
}

extension Usage {
    /// The usage object of the contract.
    public var json: JSONText {
        var object = JSONText()
        object.field("prompt_tokens", promptTokens)
        object.field("completion_tokens", completionTokens)
        object.field("cost_usd", costUSD)
        object.field("estimated", estimated)
        return object
    }
}
