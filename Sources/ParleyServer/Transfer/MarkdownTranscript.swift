import Foundation
import ParleyCore

/// A conversation as a Markdown document, for `GET /c/{id}/export.md`.
enum MarkdownTranscript {
    /// The document: the title, the model and dates, the system prompt, then each message under its author; with
    /// `includingReasoning`, a reply's reasoning goes before it in a collapsed `<details>` block.
    static func document(_ transcript: ConversationTranscript, includingReasoning: Bool = false) -> String {
        let conversation = transcript.conversation
        var lines = [
            "# \(oneLine(conversation.title))", "",
            "- Model: \(oneLine(conversation.model))",
            "- Created: \(conversation.createdAt.formatted(.iso8601))",
            "- Updated: \(conversation.updatedAt.formatted(.iso8601))", "",
        ]
        if !conversation.systemPrompt.isEmpty {
            lines += ["## System prompt", "", conversation.systemPrompt, ""]
        }
        for message in transcript.currentBranch {
            lines += ["## \(heading(message))", ""]
            if includingReasoning, let reasoning = message.reasoning {
                lines += ["<details><summary>Reasoning</summary>", "", reasoning, "", "</details>", ""]
            }
            lines += [message.content, ""]
        }
        return lines.joined(separator: "\n")
    }

    /// The heading of a message: who wrote it, and for a reply the model and any status other than complete.
    private static func heading(_ message: Message) -> String {
        switch message.role {
        case .user: return "You"
        case .system: return "System"
        case .assistant:
            let status = message.status == .complete ? "" : " (\(message.status.rawValue))"
            return "Assistant · \(oneLine(message.model))\(status)"
        }
    }

    /// Text for a heading or list line: line breaks become spaces, so a title cannot start a block of its own.
    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
