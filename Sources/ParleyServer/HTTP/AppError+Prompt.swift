import ParleyCore

extension AppError {
    /// The HTTP form of a prompt action's refusal: fields and variables a caller got wrong are 422s, each with its code.
    init(_ error: PromptError) {
        switch error {
        case .notFound: self = .notFound
        case .readOnly: self.init(ChatError.readOnly)
        case .invalid(let problem): self.init(.unprocessableContent, code: "invalid_prompt", message: problem)
        case .commandTaken(let command):
            self.init(
                .unprocessableContent, code: "command_taken",
                message: "You have a prompt called /\(command) already; choose another command.")
        case .missingVariables(let names):
            self.init(
                .unprocessableContent, code: "missing_variables",
                message: "Fill in every variable of the prompt: \(Self.list(names)).")
        case .unknownVariables(let names):
            self.init(
                .unprocessableContent, code: "unknown_variables",
                message: "The prompt has no variable called \(Self.list(names)).")
        case .filledTooLong:
            self.init(
                .unprocessableContent, code: "message_too_long",
                message: "The filled prompt is longer than \(ChatService.maxMessageLength) characters.")
        case .diskFull: self = .diskFull
        case .storage: self = .internalError
        }
    }

    /// Variable names for a message: the first five, each in quotes and cut to a name's longest, separated by commas.
    private static func list(_ names: [String]) -> String {
        names.prefix(5).map { "“\($0.prefix(PromptText.maxNameLength))”" }.joined(separator: ", ")
    }
}
