/// The HTML of one `token` event: blocks to append once, and the open tail when it is re-sent.
public struct StreamedHTML: Sendable, Equatable {
    /// HTML of blocks that became final; empty when none did.
    public var append: String
    /// The new tail, replacing the previous one; nil when the previous tail still stands.
    public var tail: String?

    /// Creates one event's HTML.
    public init(append: String, tail: String?) {
        self.append = append
        self.tail = tail
    }
}
