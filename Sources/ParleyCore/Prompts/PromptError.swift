/// Why a prompt action was refused, each mapped to one status code by the HTTP layer.
public enum PromptError: Error, Equatable, Sendable {
    /// No such prompt, or not one the caller may see.
    case notFound
    /// The caller may use this shared prompt, but only its author or an admin may change it.
    case readOnly
    /// A field is out of its limits, or the author has as many prompts as one may; the text says which.
    case invalid(String)
    /// The author has another prompt with this command.
    case commandTaken(String)
    /// A use left out these variables of the prompt (or gave them empty).
    case missingVariables([String])
    /// A use named variables the prompt does not have.
    case unknownVariables([String])
    /// The filled text would be longer than a message may be.
    case filledTooLong
    /// The disk holding the database is full; nothing was saved.
    case diskFull
    /// Storage failed; details are in the logs.
    case storage
}
