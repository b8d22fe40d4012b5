import ParleyJSON
import ParleyMarkdown

/// An event of the conversation stream, encoded once as a Server-Sent Events frame.
public enum StreamEvent: Sendable {
    case start(messageID: MessageID, model: String)
    case token(messageID: MessageID, text: String, html: StreamedHTML)
    /// New text of the model's reasoning, shown apart from the answer.
    case reasoning(messageID: MessageID, text: String)
    case error(messageID: MessageID, reason: FailureReason)
    /// The model asks for a tool call; `awaitingConfirmation` when the user must allow it first.
    case toolCall(messageID: MessageID, call: ToolCall, awaitingConfirmation: Bool)
    /// A tool call ended: answered (`ok` false for a tool's error), denied or stopped, with a short summary of its
    /// result.
    case toolResult(messageID: MessageID, step: ToolStep)
    /// The reply's end; `reasoningMilliseconds` is how long it reasoned (nil when it showed no reasoning, or unknown),
    /// `sources` the numbered documents' passages it was given (its `html` links its citations of them).
    case done(
        messageID: MessageID, status: MessageStatus, html: String, usage: Usage, reasoningMilliseconds: Int? = nil,
        sources: [DocumentSource] = [])

    /// What an event is, which names it in the stream.
    public enum Kind: UInt8, Sendable {
        case start, token, reasoning, error, done, toolCall, toolResult

        /// The `event:` name.
        var name: StaticString {
            switch self {
            case .start: "start"
            case .token: "token"
            case .reasoning: "reasoning"
            case .error: "error"
            case .done: "done"
            case .toolCall: "tool_call"
            case .toolResult: "tool_result"
            }
        }

        /// Whether its data names the reply even on a stream that named it before: all but `token` and `reasoning`,
        /// the many small events of a running reply, which belong to the reply the stream named last.
        var alwaysNamesReply: Bool {
            switch self {
            case .start, .error, .done, .toolCall, .toolResult: true
            case .token, .reasoning: false
            }
        }
    }

    /// The event's kind.
    public var kind: Kind {
        switch self {
        case .start: .start
        case .token: .token
        case .reasoning: .reasoning
        case .error: .error
        case .done: .done
        case .toolCall: .toolCall
        case .toolResult: .toolResult
        }
    }

    /// The reply the event belongs to (its data's `message_id`, where the data names it).
    public var messageID: MessageID {
        switch self {
        case .start(let messageID, _), .token(let messageID, _, _), .reasoning(let messageID, _),
            .error(let messageID, _), .done(let messageID, _, _, _, _, _), .toolCall(let messageID, _, _),
            .toolResult(let messageID, _):
            messageID
        }
    }

    /// The fields of the event's data after `message_id`.
    var otherFields: JSONText {
        var json = JSONText()
        switch self {
        case .start(_, let model):
            json.field("model", model)
        case .token(_, let text, let html):
            // Empty text and append are left out; an empty tail is not (it replaces the previous one).
            if !text.isEmpty { json.field("text", text) }
            if !html.append.isEmpty { json.field("append", html.append) }
            if let tail = html.tail { json.field("tail", tail) }
        case .reasoning(_, let text):
            if !text.isEmpty { json.field("text", text) }
        case .error(_, let reason):
            json.field("code", reason.code)
            json.field("message", reason.message)
        case .toolCall(_, let call, let awaitingConfirmation):
            json.field("call_id", call.id)
            json.field("tool", call.name)
            json.field("arguments", call.arguments)
            if awaitingConfirmation { json.field("awaiting_confirmation", true) }
        case .toolResult(_, let step):
            json.field("call_id", step.call.id)
            json.field("tool", step.call.name)
            json.field("ok", step.outcome == "ok")
            json.field("status", step.outcome)
            json.field("summary", step.summary)
        case .done(_, let status, let html, let usage, let reasoningMilliseconds, let sources):
            json.field("status", status.rawValue)
            json.field("html", html)
            json.field("usage", object: usage.json)
            if let reasoningMilliseconds { json.field("reasoning_ms", reasoningMilliseconds) }
            if !sources.isEmpty { json.field("sources", objects: sources.map(\.json)) }
        }
        return json
    }

    /// The SSE frame with this id: `id:`, `event:` and one `data:` line of JSON, which leaves out `message_id` when
    /// `replyNamed` (the stream named the event's reply before) and the kind allows it.
    public func frame(id: EventID, replyNamed: Bool = false) -> String {
        var bytes: [UInt8] = []
        Self.appendFrame(
            id: id, kind: kind, messageID: replyNamed && !kind.alwaysNamesReply ? nil : messageID,
            otherFields: otherFields.members, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends an SSE frame built from its parts: `id:x`, `event:x` and `data:` with the JSON object of
    /// `message_id` (unless nil) and `otherFields` (members without braces, possibly none). No space follows the
    /// colons: the SSE format allows that, and it saves three bytes an event.
    static func appendFrame(
        id: EventID, kind: Kind, messageID: MessageID?, otherFields: ArraySlice<UInt8>,
        to bytes: inout [UInt8]
    ) {
        append("id:", to: &bytes)
        id.append(to: &bytes)
        append("\nevent:", to: &bytes)
        append(kind.name, to: &bytes)
        append("\ndata:{", to: &bytes)
        if let messageID {
            append("\"message_id\":", to: &bytes)
            JSONText.appendDecimal(messageID, to: &bytes)
            if !otherFields.isEmpty { bytes.append(UInt8(ascii: ",")) }
        }
        bytes.append(contentsOf: otherFields)
        append("}\n\n", to: &bytes)
    }

    /// Appends a literal's bytes.
    private static func append(_ literal: StaticString, to bytes: inout [UInt8]) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// The `done` event of a finished message, as stored.
    public static func done(for message: Message) -> StreamEvent {
        .done(
            messageID: message.id, status: message.status,
            html: DocumentSource.linkingCitations(in: MarkdownRenderer.html(message.content), to: message.sources),
            usage: message.usage, reasoningMilliseconds: message.reasoningMilliseconds, sources: message.sources)
    }

    /// The frames a stream starts with when it joins a reply this instance heard only part of (it runs on another
    /// one): `start`, then the saved text, rendered, as the body of a `token` event. Both carry the id of the reply's
    /// beginning, as the log's later events do, so that a reconnection starts from the saved text again.
    public static func snapshot(of message: Message) -> String {
        let id = EventID(messageID: message.id, sequence: 0)
        return StreamEvent.start(messageID: message.id, model: message.model).frame(id: id)
            + StreamEvent.token(
                messageID: message.id, text: "",
                html: StreamedHTML(append: MarkdownRenderer.html(message.content), tail: "")
            ).frame(id: id, replyNamed: true)
    }

    /// The fields of a `token` event with its text alone, its HTML left out: the events a stream gets after a
    /// snapshot add their text after it, until `done` brings the whole reply.
    static func textAlone(of fields: [UInt8]) -> [UInt8] {
        var text = ""
        try? JSONCursor.readDocument("{" + String(decoding: fields, as: UTF8.self) + "}") { cursor in
            try cursor.readObject { cursor, key in
                if "text" ~= key { text = try cursor.readString() } else { try cursor.skipValue() }
            }
        }
        var alone = JSONText()
        if !text.isEmpty { alone.field("text", text) }
        return Array(alone.members)
    }

    /// The frames that end a finished message, as a stream that joins after its end sends them: its tool calls with
    /// how each ended (a page drawn while they ran shows them as they are now), its `error` (with the stored reason)
    /// when it failed, then its `done`.
    public static func ending(of message: Message) -> String {
        let beforeDone = EventID(messageID: message.id, sequence: EventID.doneSequence - 1)
        let steps = message.toolSteps.map { step in
            StreamEvent.toolCall(messageID: message.id, call: step.call, awaitingConfirmation: false).frame(
                id: beforeDone)
                + (step.status == .running || step.status == .awaiting
                    ? "" : StreamEvent.toolResult(messageID: message.id, step: step).frame(id: beforeDone))
        }
        let error = message.failure.map { StreamEvent.error(messageID: message.id, reason: $0).frame(id: beforeDone) }
        return steps.joined() + (error ?? "")
            + done(for: message).frame(id: EventID(messageID: message.id, sequence: EventID.doneSequence))
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

extension DocumentSource {
    /// The source as the `done` event and the API show it: its number, document, name, page and link.
    public var json: JSONText {
        var object = JSONText()
        object.field("number", number)
        object.field("document_id", documentID)
        object.field("name", name)
        if let page { object.field("page", page) }
        object.field("url", path)
        return object
    }

    /// A reply's rendered `html` with its citations of `sources` (`[n]` in its text) made links to them.
    public static func linkingCitations(in html: String, to sources: [DocumentSource]) -> String {
        guard !sources.isEmpty else { return html }
        return CitationLinks.html(html, links: Dictionary(sources.map { ($0.number, $0.path) }) { first, _ in first })
    }
}
