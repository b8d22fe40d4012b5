import Foundation
import ParleyCore
import ParleyMarkdown

/// A message as the conversation page shows it.
enum MessageView {
    /// The template values of a message: its markdown rendered (safely) to HTML, its images (at the URLs `imageURL`
    /// gives: the owner's, or a share's), its status and usage.
    static func values(_ message: Message, imageURL: (Attachment) -> String = AttachmentController.ownerURL) -> [String: Any] {
        // A reply's pictures (an image model's) are part of its markdown; a question's uploads are listed above it.
        let listed = message.role == .assistant ? [] : message.attachments
        var values: [String: Any] = [
            "id": message.id,
            "role": message.role.rawValue,
            "is_user": message.role == .user,
            "is_assistant": message.role == .assistant,
            "html": MarkdownRenderer.html(message.content),
            "status": message.status.rawValue,
            "is_streaming": message.status == .streaming,
            "is_partial": [.stopped, .interrupted, .error].contains(message.status),
            "model": message.model,
            "created_at": message.createdAt.formatted(.iso8601),
            "has_attachments": !listed.isEmpty,
            "attachments": listed.map { attachment -> [String: Any] in
                ["url": imageURL(attachment), "name": attachment.fileName, "width": attachment.width, "height": attachment.height]
            },
        ]
        if message.role == .assistant, message.status != .streaming {
            values["usage"] = "\(message.usage.promptTokens) in · \(message.usage.completionTokens) out"
                + (message.usage.estimated ? " (estimated)" : "")
        }
        if let failure = message.failure { values["failure"] = failure.message }
        return values
    }
}
