/// The disk holding the database is full, so the server cannot start (every start writes to the file); its
/// description is the sentence `parley serve` prints.
public struct DiskFullAtStartup: Error, CustomStringConvertible {
    public let dataDirectory: String

    public var description: String {
        "The disk holding \(dataDirectory) is full, so Parley cannot start: it must write to parley.sqlite as it starts. "
            + "Free some space on that disk, then start it again; what was saved before is intact."
    }
}
