/// One step of incremental rendering: HTML to append once (blocks that became final) and the HTML of the still-open
/// rest.
public struct MarkdownUpdate: Sendable, Equatable {
    /// HTML of blocks that can no longer change; emitted exactly once.
    public var append: String
    /// HTML of everything after the final blocks; replaces the previous tail.
    public var tail: String

    /// Creates an update from its two HTML pieces.
    public init(append: String, tail: String) {
        self.append = append
        self.tail = tail
    }
}
