import Foundation
import ParleyCore
import ParleyMarkdown

/// A message as the conversation and share pages show it, written straight to HTML: a page of a thousand messages
/// through a mustache partial each spent most of its time in the template engine.
enum MessageView {
    /// The `<article>` of a message: its markdown rendered (safely) to HTML, its images at the URLs `imageURL` gives
    /// (the owner's, or a share's), a question's documents and a reply's sources (its citations linked to them), its
    /// status, and in the owner's view its usage and the controls that walk its versions, edit a question and
    /// regenerate a reply. The controls hold no token: their buttons belong to forms of the page (`version-form`,
    /// `regenerate-form`), so that the HTML can be kept for every session.
    static func html(
        _ message: Message, imageURL: (Attachment) -> String = AttachmentController.ownerURL,
        isOwnersView: Bool = true
    ) -> String {
        let role = message.role.rawValue, status = message.status.rawValue
        var html =
            "<article class=\"message \(role)\" id=\"m\(message.id)\" data-id=\"\(message.id)\" data-status=\"\(status)\">\n"
        // A question's uploads are listed above it; a reply's pictures (an image model's) are in its markdown, where
        // their URLs become `imageURL`'s too.
        var content = DocumentSource.linkingCitations(
            in: MarkdownRenderer.html(message.content), to: message.sources)
        if message.role == .assistant {
            for attachment in message.attachments
            where imageURL(attachment) != AttachmentController.ownerURL(attachment) {
                content = content.replacingOccurrences(
                    of: "src=\"\(AttachmentController.ownerURL(attachment))\"",
                    with: "src=\"\(HTMLText.escaped(imageURL(attachment)))\"")
            }
        } else if !message.attachments.isEmpty {
            html += "  <ul class=\"attachments\" aria-label=\"Images\">"
            for attachment in message.attachments {
                let url = HTMLText.escaped(imageURL(attachment))
                html +=
                    "<li><a href=\"\(url)\" target=\"_blank\" rel=\"noopener\"><img src=\"\(url)\" alt=\"\(HTMLText.escaped(attachment.fileName))\""
                    + " width=\"\(attachment.width)\" height=\"\(attachment.height)\" loading=\"lazy\"></a></li>"
            }
            html += "</ul>\n"
        }
        if !message.documents.isEmpty { html += documentList(message.documents) }
        if let reasoning = message.reasoning, !reasoning.isEmpty {
            html += reasoningSection(reasoning, of: message)
        }
        if !message.toolSteps.isEmpty {
            html += ToolStepsView.html(
                message.toolSteps, conversationID: message.conversationID, isOwnersView: isOwnersView)
        }
        html += "  <div class=\"content\">\(content)</div>\n"
        if !message.sources.isEmpty { html += sourceList(message.sources) }
        if message.status == .streaming {
            html += "  <p class=\"typing\" aria-label=\"The reply is being written\">…</p>\n"
        }
        if let failure = message.failure {
            html += "  <p class=\"error\" role=\"alert\">\(HTMLText.escaped(failure.message))</p>\n"
        }
        html += "  <footer class=\"meta\">\n"
        if message.role == .assistant {
            let model = HTMLText.escaped(message.model)
            html += "    <span class=\"tag\" title=\"\(model)\">\(model)</span>\n"
        }
        if [.stopped, .interrupted, .error, .truncated].contains(message.status) {
            html += "    <span class=\"status\">\(status)</span>\n"
        }
        if isOwnersView, message.role == .assistant, message.status != .streaming {
            html +=
                "    <span class=\"usage\">" + usageText(message.usage, documentTokens: message.documentTokens)
                + "</span>\n"
        }
        if isOwnersView { html += controls(message) }
        let created = message.createdAt.formatted(.iso8601)
        html += "    <time datetime=\"\(created)\">\(created)</time>\n  </footer>\n</article>\n"
        return html
    }

    /// A question's documents as chips: each its name, type and pages (a PDF) or size, linking to the document, which
    /// opens in a new tab (documents.js writes the same for a question just sent).
    private static func documentList(_ documents: [Document]) -> String {
        var html = "  <ul class=\"documents\" aria-label=\"Documents\">"
        for document in documents {
            html +=
                "<li><a href=\"/documents/\(document.id)\" target=\"_blank\" rel=\"noopener\">"
                + "<span class=\"document-name\">\(HTMLText.escaped(document.name))</span> "
                + "<span class=\"document-detail\">\(documentSummary(document))</span></a></li>"
        }
        return html + "</ul>\n"
    }

    /// "PDF · 12 pages", "Text · 3 KB": a document's type, then its pages for a PDF, else its size.
    private static func documentSummary(_ document: Document) -> String {
        document.kind.label + " · "
            + (document.kind == .pdf ? counted(document.pageCount, "page") : byteSize(document.byteCount))
    }

    /// "1 page", "12 pages".
    private static func counted(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)" + (number == 1 ? "" : "s")
    }

    /// A size in bytes, KB or MB (1,024 based): "512 bytes", "3 KB", "1.5 MB".
    private static func byteSize(_ bytes: Int) -> String {
        if bytes < 1024 { return counted(bytes, "byte") }
        if bytes < 1_048_576 { return "\(Int((Double(bytes) / 1024).rounded())) KB" }
        return String(format: "%.1f MB", Double(bytes) / 1_048_576)
    }

    /// A reply's numbered sources under it: "[1] report.pdf, page 7", each linking to its document at that page, in a
    /// new tab (app.js writes the same when the reply ends on the page).
    private static func sourceList(_ sources: [DocumentSource]) -> String {
        var html = "  <ol class=\"sources\" aria-label=\"Sources\">"
        for source in sources {
            let page = source.page.map { ", page \($0)" } ?? ""
            html +=
                "<li><a href=\"\(HTMLText.escaped(source.path))\" target=\"_blank\" rel=\"noopener\">"
                + "[\(source.number)] \(HTMLText.escaped(source.name))\(page)</a></li>"
        }
        return html + "</ol>\n"
    }

    /// A reply's reasoning, collapsed under a summary of how long it took (while it streams, that it is underway; when
    /// the time is unknown, as for replies stored before it was kept, just "Reasoning").
    private static func reasoningSection(_ reasoning: String, of message: Message) -> String {
        let summary =
            message.status == .streaming
            ? "Thinking…" : message.reasoningMilliseconds.map(thoughtFor(milliseconds:)) ?? "Reasoning"
        return "  <details class=\"reasoning\"><summary>\(summary)</summary>"
            + "<div class=\"reasoning-text\">\(HTMLText.escaped(reasoning))</div></details>\n"
    }

    /// "Thought for N s": the reasoning's time in whole seconds, rounded, and at least 1 (as the live page says it).
    static func thoughtFor(milliseconds: Int) -> String {
        "Thought for \(max(1, Int((Double(milliseconds) / 1000).rounded()))) s"
    }

    /// The owner's controls of a message: `◀ n/m ▶` when it has other versions, Edit for a question or Regenerate for a
    /// finished reply, and Delete (which asks first).
    private static func controls(_ message: Message) -> String {
        var html = ""
        let versions = message.versions
        if versions.count > 1 {
            html += "    <span class=\"versions\" role=\"group\" aria-label=\"Versions\">"
            html += versionButton(versions.previous, label: "Previous version", symbol: "◀")
            html += "<span>\(versions.index)/\(versions.count)</span>"
            html += versionButton(versions.next, label: "Next version", symbol: "▶") + "</span>\n"
        }
        switch message.role {
        case .user:
            html +=
                "    <a class=\"edit\" href=\"/c/\(message.conversationID)?edit=\(message.id)#editor\">Edit</a>\n"
        case .assistant where message.status != .streaming:
            html +=
                "    <button type=\"submit\" class=\"link\" form=\"regenerate-form\" name=\"message_id\""
                + " value=\"\(message.id)\">Regenerate</button>\n"
        default:
            break
        }
        if message.status != .streaming {
            html +=
                "    <button type=\"submit\" class=\"link\" form=\"delete-message-form\" name=\"message_id\""
                + " value=\"\(message.id)\">Delete</button>\n"
        }
        return html
    }

    /// A button that shows the version `id`, or a disabled one when there is none that way.
    private static func versionButton(_ id: MessageID?, label: String, symbol: String) -> String {
        guard let id else {
            return "<button type=\"button\" disabled aria-label=\"\(label)\">\(symbol)</button>"
        }
        return "<button type=\"submit\" form=\"version-form\" name=\"message_id\" value=\"\(id)\""
            + " aria-label=\"\(label)\">\(symbol)</button>"
    }

    /// A reply's token counts, marked when estimated; "nothing billed" when there are none.
    static func usageText(_ usage: Usage, documentTokens: Int = 0) -> String {
        guard usage.promptTokens > 0 || usage.completionTokens > 0 else { return "nothing billed" }
        let documents = documentTokens > 0 ? " (\(documentTokens) from documents)" : ""
        return "\(usage.promptTokens) in\(documents) · \(usage.completionTokens) out"
            + (usage.estimated ? " (estimated)" : "")
    }
}
