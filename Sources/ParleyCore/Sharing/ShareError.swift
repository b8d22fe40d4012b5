/// Why a share action was refused, each mapped to one status code by the HTTP layer.
public enum ShareError: Error, Equatable, Sendable {
    /// No such conversation or link, not the user's, or the link expired.
    case notFound
    /// The disk holding the database is full; nothing was saved.
    case diskFull
    /// A fork would put the user over their storage quota; nothing was saved.
    case storageFull(StorageStatus)
    /// Storage failed; details are in the logs.
    case storage
}
