/// Why a knowledge collection action was refused, each mapped to one status code by the HTTP layer.
public enum KnowledgeError: Error, Equatable, Sendable {
    /// No such collection or document, or not the caller's.
    case notFound
    /// A name or description is out of its limits, or the user has as many collections as one may; the text says
    /// which.
    case invalid(String)
    /// These collections are not the user's (for an assistant: not its author's), so they cannot be attached.
    case unknownCollections([CollectionID])
    /// The disk holding the database is full; nothing was saved.
    case diskFull
    /// Storage failed; details are in the logs.
    case storage
}
