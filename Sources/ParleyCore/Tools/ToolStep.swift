/// One tool call of a reply and how it went, stored with the reply and shown in its transcript.
public struct ToolStep: Sendable, Equatable, Codable {
    /// Where a call stands.
    public enum Status: String, Sendable, Codable {
        /// Waiting for the user to allow or deny it.
        case awaiting
        case running
        /// It answered (its result may still be a tool error, `result.isError`).
        case done
        /// The user denied it, or did not answer in time.
        case denied
        /// The reply was stopped while it ran.
        case stopped
    }

    public var call: ToolCall
    public var status: Status
    /// What it gave, once it answered or was denied.
    public var result: ToolResult?

    /// Creates a step.
    public init(call: ToolCall, status: Status, result: ToolResult? = nil) {
        self.call = call
        self.status = status
        self.result = result
    }

    /// How the call went, as the transcript's row and the `tool_result` event name it: `running`, `awaiting`, `ok`,
    /// `failed` (the tool's error), `denied` or `stopped`.
    public var outcome: String {
        switch status {
        case .done: result?.isError == true ? "failed" : "ok"
        case .running, .awaiting, .denied, .stopped: status.rawValue
        }
    }

    /// A short line of the result for the transcript's row and the `tool_result` event: its first 200 characters.
    public var summary: String {
        guard let result else { return status == .denied ? "Denied." : "" }
        return result.content.count > 200 ? String(result.content.prefix(200)) + "…" : result.content
    }
}
