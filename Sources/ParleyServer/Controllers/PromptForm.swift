import ParleyCore

/// The prompt form's fields: `title`, `command`, `body`, `visibility` and `groups[]`.
struct PromptForm: Decodable {
    var title: String?
    var command: String?
    var body: String?
    var visibility: String?
    var groups: [GroupID]?

    /// The draft the form describes (fields left out are empty), or a 422 for a visibility that is none of the three.
    func draft() throws(AppError) -> PromptDraft {
        guard let visibility = Visibility(rawValue: visibility ?? "private") else {
            throw AppError(
                .unprocessableContent, code: "invalid_prompt", message: "Share with no one, everyone or groups.")
        }
        return PromptDraft(
            title: title ?? "", command: command ?? "", body: body ?? "", visibility: visibility,
            groupIDs: visibility == .groups ? groups ?? [] : [])
    }
}

/// The form that uses a prompt: each variable's value as `variables[name]`, and the model of the conversation.
struct PromptUseForm: Decodable {
    var variables: [String: String]?
    var model: String?
}
