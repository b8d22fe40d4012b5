import Foundation
import ParleyCore

/// A reply's tool calls in its transcript: a collapsed row each, naming the tool and how the call went, that opens on
/// its arguments and its result; everything a tool or the model wrote is escaped (a result is data, never markup).
enum ToolStepsView {
    /// The longest part of a result shown (the model was given it whole, up to the result limit).
    static let shownCharacters = 4_000

    /// The rows of `steps`, in the order the calls were made; in the owner's view, a call waiting for permission has
    /// Allow and Deny buttons (of the page's `tool-decision-form`, which holds the token) and is open.
    static func html(_ steps: [ToolStep], conversationID: ConversationID, isOwnersView: Bool) -> String {
        var html = "  <div class=\"tool-steps\">"
        for step in steps {
            let result = step.result.map { result in
                let content =
                    result.content.count > shownCharacters
                    ? String(result.content.prefix(shownCharacters)) + "…" : result.content
                return "<pre class=\"tool-result\">\(HTMLText.escaped(content))</pre>"
            }
            let waiting = isOwnersView && step.status == .awaiting
            html +=
                "<details class=\"tool-call\" data-call-id=\"\(HTMLText.escaped(step.call.id))\" data-status=\"\(step.outcome)\""
                + (waiting ? " open>" : ">")
                + "<summary><span class=\"tool-name\">\(HTMLText.escaped(step.call.name))</span> "
                + "<span class=\"tool-status\">\(label(step))</span></summary>"
                + "<pre class=\"tool-arguments\">\(HTMLText.escaped(step.call.arguments))</pre>" + (result ?? "")
                + (waiting ? decisionButtons(step.call.id, conversationID: conversationID) : "") + "</details>"
        }
        return html + "</div>\n"
    }

    /// Allow and Deny for a call waiting for permission.
    static func decisionButtons(_ callID: String, conversationID: ConversationID) -> String {
        let action = HTMLText.escaped(
            "/c/\(conversationID)/tools/" + (callID.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? "")
        )
        return "<p class=\"tool-decision\">"
            + "<button type=\"submit\" form=\"tool-decision-form\" formaction=\"\(action)\" name=\"decision\" value=\"allow\" class=\"primary\">Allow</button> "
            + "<button type=\"submit\" form=\"tool-decision-form\" formaction=\"\(action)\" name=\"decision\" value=\"deny\">Deny</button></p>"
    }

    /// The words of a call's outcome.
    static func label(_ step: ToolStep) -> String {
        switch step.outcome {
        case "ok": "done"
        case "failed": "failed"
        case "awaiting": "waiting for your answer"
        case "denied": "denied"
        case "stopped": "stopped"
        default: "running…"
        }
    }
}
